package tlogproof

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	fnote "github.com/transparency-dev/formats/note"
)

// Policy is a parsed C2SP tlog-policy: the logs whose signature a checkpoint may carry, the
// witnesses, their groups, and the quorum of cosignatures it needs.
type Policy struct {
	Logs      []Log
	Witnesses []Witness
	Groups    []Group
	// Quorum is the name of a witness or group, or None.
	Quorum string
}

// None is the predefined name of the quorum that needs no cosignature.
const None = "none"

// Log is a log line: its verifier key (its name is the log's origin) and an optional URL.
type Log struct{ Key, URL string }

// Witness is a witness line: its name in the policy, its cosignature verifier key, an
// optional URL.
type Witness struct{ Name, Key, URL string }

// Group is a group line: it has witnessed a checkpoint when at least Threshold of its Members
// (witnesses or groups) have.
type Group struct {
	Name      string
	Threshold int
	Members   []string
}

// MaxPolicySize bounds a policy's text; MaxPolicyItems its logs, witnesses and groups each.
const (
	MaxPolicySize  = 64 << 10
	MaxPolicyItems = 256
)

// ParsePolicy reads a policy's text as C2SP tlog-policy specifies it: lines ending with a
// newline, fields separated by spaces and tabs, blank and comment (#) lines ignored; log,
// witness, group and exactly one quorum line; a name used only after its definition, defined
// once, listed as a group member at most once; no two logs, or two witnesses, with one public
// key; only tab, newline, 0x20-0x7E and bytes from 0x80 in the text. Log keys must be Ed25519
// note keys (0x01) and witness keys cosignature/v1 keys (0x04, or 0x01 for the same key), the
// kinds this package verifies. Any other text is refused with a *Error of stage StageParse.
func ParsePolicy(text []byte) (Policy, error) {
	fail := func(line int, format string, args ...any) (Policy, error) {
		return Policy{}, refuse(StageParse, "policy line %d: %s", line, fmt.Sprintf(format, args...))
	}
	if len(text) > MaxPolicySize {
		return Policy{}, refuse(StageParse, "the policy is %d bytes, more than the %d allowed", len(text), MaxPolicySize)
	}
	for i, c := range text {
		if c != '\t' && c != '\n' && (c < 0x20 || c == 0x7f) {
			return Policy{}, refuse(StageParse, "the policy holds the control character 0x%02x at byte %d", c, i)
		}
	}
	if len(text) == 0 || text[len(text)-1] != '\n' {
		return Policy{}, refuse(StageParse, "the policy's last line does not end with a newline")
	}
	var p Policy
	defined := map[string]bool{} // witness and group names
	member := map[string]bool{}  // names already listed in a group
	logKeys := map[string]bool{} // public keys of the logs
	witKeys := map[string]bool{} // public keys of the witnesses
	quorumSeen := false
	for n, raw := range strings.Split(string(text[:len(text)-1]), "\n") {
		n++
		f := strings.FieldsFunc(raw, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if quorumSeen && f[0] == "quorum" {
			return fail(n, "a second quorum line")
		}
		switch f[0] {
		case "log":
			if len(f) != 2 && len(f) != 3 {
				return fail(n, "want log <vkey> [<url>]")
			}
			pub, err := logKey(f[1])
			if err != nil {
				return fail(n, "%v", err)
			}
			if logKeys[string(pub)] {
				return fail(n, "a second log with the public key of an earlier one")
			}
			logKeys[string(pub)] = true
			if len(p.Logs) == MaxPolicyItems {
				return fail(n, "more than %d logs", MaxPolicyItems)
			}
			p.Logs = append(p.Logs, Log{Key: f[1], URL: at(f, 2)})
		case "witness":
			if len(f) != 3 && len(f) != 4 {
				return fail(n, "want witness <name> <vkey> [<url>]")
			}
			if err := newName(f[1], defined); err != nil {
				return fail(n, "%v", err)
			}
			pub, err := witnessKey(f[2])
			if err != nil {
				return fail(n, "%v", err)
			}
			if witKeys[string(pub)] {
				return fail(n, "a second witness with the public key of an earlier one")
			}
			witKeys[string(pub)] = true
			if len(p.Witnesses) == MaxPolicyItems {
				return fail(n, "more than %d witnesses", MaxPolicyItems)
			}
			defined[f[1]] = true
			p.Witnesses = append(p.Witnesses, Witness{Name: f[1], Key: f[2], URL: at(f, 3)})
		case "group":
			if len(f) < 4 {
				return fail(n, "want group <name> all|any|<k> <name>...")
			}
			if err := newName(f[1], defined); err != nil {
				return fail(n, "%v", err)
			}
			members := f[3:]
			for _, m := range members {
				switch {
				case m == None:
					return fail(n, "%q cannot be a group member", None)
				case !defined[m]:
					return fail(n, "the member %q is not a witness or group defined before", m)
				case member[m]:
					return fail(n, "%q is listed as a group member a second time", m)
				}
				member[m] = true
			}
			k, err := threshold(f[2], len(members))
			if err != nil {
				return fail(n, "%v", err)
			}
			if len(p.Groups) == MaxPolicyItems {
				return fail(n, "more than %d groups", MaxPolicyItems)
			}
			defined[f[1]] = true
			p.Groups = append(p.Groups, Group{Name: f[1], Threshold: k, Members: members})
		case "quorum":
			if len(f) != 2 {
				return fail(n, "want quorum <name>")
			}
			if f[1] != None && !defined[f[1]] {
				return fail(n, "the quorum %q is not a witness or group defined before", f[1])
			}
			p.Quorum, quorumSeen = f[1], true
		default:
			return fail(n, "unknown line %q (want log, witness, group or quorum)", f[0])
		}
	}
	if !quorumSeen {
		return Policy{}, refuse(StageParse, "the policy has no quorum line")
	}
	return p, nil
}

func at(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// newName checks a name a witness or group line defines.
func newName(name string, defined map[string]bool) error {
	switch {
	case name == None:
		return fmt.Errorf("%q is a predefined name", None)
	case defined[name]:
		return fmt.Errorf("the name %q is defined a second time", name)
	}
	return nil
}

// threshold reads all, any or a decimal k with 1 <= k <= n.
func threshold(s string, n int) (int, error) {
	switch s {
	case "all":
		return n, nil
	case "any":
		return 1, nil
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("the threshold %q is not all, any or a decimal", s)
		}
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > n {
		return 0, fmt.Errorf("the threshold %s is not between 1 and the %d members", s, n)
	}
	return k, nil
}

// vkey is a parsed verifier key, <name>+<hash>+<base64(type || public key)>.
type vkey struct {
	name string
	typ  byte
	pub  []byte
}

// parseVKey reads a verifier key strictly, as the three SDKs do: a name of valid UTF-8 without
// spaces or plus signs, 8 lowercase hex digits, standard padded base64 of an Ed25519 key
// (32 bytes) of type 0x01 (a note key) or 0x04 (a cosignature/v1 key), and the hash the first
// 4 bytes of SHA-256(name || "\n" || type || key).
func parseVKey(s string) (vkey, error) {
	name, rest, ok1 := strings.Cut(s, "+")
	hash, key, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 || name == "" || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || r == '+' }) {
		return vkey{}, fmt.Errorf("the key %q is not <name>+<hash>+<key>", s)
	}
	b, err := decode64(key)
	if len(hash) != 8 || strings.Trim(hash, "0123456789abcdef") != "" || err != nil || len(b) != 33 || b[0] != 0x01 && b[0] != 0x04 {
		return vkey{}, fmt.Errorf("the key %q is not an Ed25519 verifier key (8 lowercase hex digits, then base64 of 0x01 or 0x04 and 32 bytes)", s)
	}
	h := sha256.Sum256(append([]byte(name+"\n"), b...))
	if hex.EncodeToString(h[:4]) != hash {
		return vkey{}, fmt.Errorf("the key %q: its hash is not the hash of its name and key", s)
	}
	return vkey{name: name, typ: b[0], pub: b[1:]}, nil
}

// logKey checks a log's verifier key: an Ed25519 signed-note key (type 0x01).
func logKey(s string) ([]byte, error) {
	k, err := parseVKey(s)
	if err == nil && k.typ != 0x01 {
		err = fmt.Errorf("the log key %q is not an Ed25519 note key (type 0x01)", s)
	}
	return k.pub, err
}

// witnessKey checks a witness's verifier key: cosignature/v1 (type 0x04), or an Ed25519 note
// key (0x01) standing for the cosignature/v1 key of the same public key.
func witnessKey(s string) ([]byte, error) {
	k, err := parseVKey(s)
	return k.pub, err
}

// NewPolicy is the policy of one log and its configured witnesses, quorum of which must
// cosign (none when there are no witnesses): what GET /svc/log/policy serves. Each witness is
// named by its key's name (made unique when two share one), its key written in its
// cosignature/v1 form.
func NewPolicy(logVerifierKey string, witnessKeys []string, quorum int) (Policy, error) {
	logVerifierKey = strings.TrimSpace(logVerifierKey)
	if _, err := logKey(logVerifierKey); err != nil {
		return Policy{}, err
	}
	p := Policy{Logs: []Log{{Key: logVerifierKey}}, Quorum: None}
	if len(witnessKeys) == 0 {
		return p, nil
	}
	if quorum < 1 || quorum > len(witnessKeys) {
		return Policy{}, fmt.Errorf("tlog-policy: the quorum %d is not between 1 and the %d witnesses", quorum, len(witnessKeys))
	}
	used := map[string]bool{None: true}
	unique := func(name string) string {
		for i, n := 2, name; ; i++ {
			if !used[n] {
				used[n] = true
				return n
			}
			n = name + "-" + strconv.Itoa(i)
		}
	}
	var names []string
	for _, k := range witnessKeys {
		k = strings.TrimSpace(k)
		v, err := fnote.VKeyToCosignatureV1(k)
		if err != nil { // already a cosignature/v1 key
			v = k
		}
		if _, err := witnessKey(v); err != nil {
			return Policy{}, err
		}
		name := unique(strings.SplitN(v, "+", 2)[0])
		names = append(names, name)
		p.Witnesses = append(p.Witnesses, Witness{Name: name, Key: v})
	}
	if len(names) == 1 {
		p.Quorum = names[0]
		return p, nil
	}
	g := unique("witnesses")
	p.Groups = []Group{{Name: g, Threshold: quorum, Members: names}}
	p.Quorum = g
	return p, nil
}

// Format writes the policy's text: a comment, the logs, the witnesses, the groups, the quorum.
func (p Policy) Format() []byte {
	var b bytes.Buffer
	b.WriteString("# c2sp.org/tlog-policy\n")
	for _, l := range p.Logs {
		b.WriteString(strings.TrimRight("log "+l.Key+" "+l.URL, " ") + "\n")
	}
	for _, w := range p.Witnesses {
		b.WriteString(strings.TrimRight("witness "+w.Name+" "+w.Key+" "+w.URL, " ") + "\n")
	}
	for _, g := range p.Groups {
		k := strconv.Itoa(g.Threshold)
		switch {
		case g.Threshold == len(g.Members):
			k = "all"
		case g.Threshold == 1:
			k = "any"
		}
		b.WriteString("group " + g.Name + " " + k + " " + strings.Join(g.Members, " ") + "\n")
	}
	b.WriteString("quorum " + p.Quorum + "\n")
	return b.Bytes()
}
