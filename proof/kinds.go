package proof

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// GenesisHex returns the namespace lookup form of genesis (docs/digests.md): "0x" + lowercase hex
// of the UTF-8 bytes of the timestamp string.
func GenesisHex(ts string) string { return "0x" + hex.EncodeToString([]byte(ts)) }

// GenesisFromEither accepts genesis in either form, as verification must, and returns the
// timestamp string that goes into a digest. Text starting with "0x" is the hex form: it must be
// a non-empty, even number of hex digits that decode to valid UTF-8. Any other text is taken as
// the timestamp itself and returned unchanged; whether it matches is the digest's call.
func GenesisFromEither(s string) (string, error) {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return s, nil
	}
	b, err := hex.DecodeString(digits)
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("genesis %q is neither a timestamp nor its hex form", s)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("genesis %q does not decode to UTF-8 text", s)
	}
	return string(b), nil
}

// Kind is the kind of entry a proof is for. The zero Kind is not a valid kind.
type Kind int

// The three kinds of entries.
const (
	KindNamespace Kind = iota + 1
	KindRegistry
	KindRecord
)

// String returns "namespace", "registry" or "record".
func (k Kind) String() string {
	switch k {
	case KindNamespace:
		return "namespace"
	case KindRegistry:
		return "registry"
	case KindRecord:
		return "record"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// typePrefix is the proof type name of k without its year, or "" for an invalid kind.
func (k Kind) typePrefix() string {
	switch k {
	case KindNamespace:
		return "SvcNamespaceProof"
	case KindRegistry:
		return "SvcRegistryProof"
	case KindRecord:
		return "SvcRecordProof"
	}
	return ""
}

// ProofType names the proof type of a kind of entry created in a year (its UTC year), for
// example ProofType(KindRecord, 2026) == "SvcRecordProof2026". It returns "" for an invalid
// kind or a year outside 0..9999.
func ProofType(k Kind, year int) string {
	prefix := k.typePrefix()
	if prefix == "" || year < 0 || year > 9999 {
		return ""
	}
	var b [len("SvcNamespaceProof") + 4]byte
	out := append(b[:0], prefix...)
	out = append(out, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10))
	return string(out)
}

// ParseProofType returns the kind and year of a proof type name such as "SvcRegistryProof2025":
// one of the three prefixes followed by exactly four ASCII digits. Whether the year is
// acceptable (2025 up to the current year, docs/digests.md) is the verifier's call.
func ParseProofType(s string) (Kind, int, error) {
	for _, k := range [...]Kind{KindNamespace, KindRegistry, KindRecord} {
		rest, ok := strings.CutPrefix(s, k.typePrefix())
		if !ok {
			continue
		}
		if len(rest) != 4 {
			break
		}
		year := 0
		for i := 0; i < 4; i++ {
			c := rest[i]
			if c < '0' || c > '9' {
				return 0, 0, fmt.Errorf("proof type %q: the year must be four digits", s)
			}
			year = year*10 + int(c-'0')
		}
		return k, year, nil
	}
	return 0, 0, fmt.Errorf("proof type %q is not Svc{Namespace,Registry,Record}Proof<YYYY>", s)
}

// TimeLayout is the time layout of JavaScript's Date.prototype.toISOString for years 0 to 9999.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as JavaScript's toISOString does: in UTC, with milliseconds (finer
// digits are truncated, as a Date holds none), ending in "Z", e.g. "2026-11-22T08:00:00.000Z".
// (toISOString writes years outside 0..9999 with a sign and six digits; the service has none.)
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime parses the FormatTime form and, leniently, any RFC 3339 timestamp (any offset,
// any number of fractional digits), and returns the instant in UTC.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(TimeLayout, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
	}
	return t.UTC(), nil
}
