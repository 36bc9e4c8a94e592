package proof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// randomRune draws a character from every region that matters to JSON text and to UTF-16
// ordering: ASCII with controls and NUL, the characters JSON.stringify treats specially (or
// that an HTML-escaping encoder would), 2- and 3-byte UTF-8 below the surrogates, U+E000..U+FFFF
// (which sorts after supplementary characters in UTF-16) and the supplementary planes.
func randomRune(r *rand.Rand) rune {
	switch r.IntN(7) {
	case 0:
		return rune(r.IntN(0x80))
	case 1:
		special := []rune{0, '\b', '\f', '\n', '\r', '\t', 0x1f, '"', '\\', '/', '<', '>', '&', 0x7f,
			0x2028, 0x2029, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0xe000, 0xd7ff, 0x10000, 0x10ffff, 0x1f600}
		return special[r.IntN(len(special))]
	case 2:
		return rune(0x80 + r.IntN(0x800-0x80))
	case 3:
		return rune(0x800 + r.IntN(0xd800-0x800))
	case 4:
		return rune(0xe000 + r.IntN(0x10000-0xe000))
	case 5:
		return rune(0x10000 + r.IntN(0x110000-0x10000))
	default:
		return rune('a' + r.IntN(3)) // short alphabet: shared prefixes and equal keys
	}
}

// randomString returns up to maxLen random characters.
func randomString(r *rand.Rand, maxLen int) string {
	var b strings.Builder
	for range r.IntN(maxLen + 1) {
		b.WriteRune(randomRune(r))
	}
	return b.String()
}

// randomNumber returns a finite float64 from the regions where number forms differ.
func randomNumber(r *rand.Rand) float64 {
	switch r.IntN(9) {
	case 0: // any bit pattern: subnormals, huge and tiny exponents
		for {
			if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	case 1: // integers up to 2^53
		return float64(r.Int64N(1<<53+1)) * float64(1-2*r.IntN(2))
	case 2: // small integers
		return float64(r.IntN(2001) - 1000)
	case 3:
		return math.Copysign(0, -1)
	case 4: // short decimals
		return float64(r.IntN(100000)) / math.Pow(10, float64(r.IntN(8)))
	case 5: // the layout boundaries 1e21 and 1e-6 (and 1e-7) with their neighbours
		b := []float64{1e21, 1e-6, 1e-7, 1e20, 1 << 53}[r.IntN(5)]
		for range r.IntN(3) {
			b = math.Nextafter(b, math.Inf(2*r.IntN(2)-1))
		}
		return b
	case 6: // powers of ten across the whole range
		f, _ := strconv.ParseFloat("1e"+strconv.Itoa(r.IntN(630)-323), 64)
		return f
	default: // a few random digits at a random scale
		f, err := strconv.ParseFloat(fmt.Sprintf("%d.%de%d", r.IntN(10), r.IntN(1000000), r.IntN(620)-310), 64)
		if err != nil || math.IsInf(f, 0) {
			return 1
		}
		return f * float64(1-2*r.IntN(2))
	}
}

// randomValue builds a random JSON value of Go types that encoding/json writes as text that
// JSON.parse reads back to the same JavaScript value (so no float32, whose encoding/json text
// is its 32-bit shortest form).
func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(12)
	if depth >= 5 {
		k = r.IntN(7)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return randomString(r, 8)
	case 4, 5:
		return randomNumber(r)
	case 6: // Go integer types, including ones beyond 2^53 that JavaScript rounds
		switch r.IntN(4) {
		case 0:
			return r.IntN(1 << 20)
		case 1:
			return int64(r.Uint64())
		case 2:
			return r.Uint64()
		default:
			return int32(r.Int32())
		}
	case 7:
		m := map[string]string{}
		for range r.IntN(4) {
			m[randomString(r, 4)] = randomString(r, 6)
		}
		return m
	case 8, 9:
		a := make([]any, r.IntN(6))
		for i := range a {
			a[i] = randomValue(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(7) {
			m[randomString(r, 5)] = randomValue(r, depth+1)
		}
		return m
	}
}

// randomText writes a random JSON text by hand, in forms encoding/json never produces:
// \u escapes in either case (supplementary characters as surrogate pairs), escaped solidus,
// number texts with leading fraction zeros, exponents in E/e with signs and long mantissas, and
// spaces and tabs between tokens. It has no line breaks outside strings, for digest.mjs
// reads a value per line.
func randomText(r *rand.Rand, b *strings.Builder, depth int) {
	ws := func() {
		for range r.IntN(3) {
			b.WriteByte(" \t"[r.IntN(2)])
		}
	}
	ws()
	k := r.IntN(8)
	if depth >= 5 {
		k = r.IntN(4)
	}
	switch k {
	case 0:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	case 1:
		randomStringText(r, b)
	case 2, 3:
		b.WriteString(randomNumberText(r))
	case 4, 5:
		b.WriteByte('[')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomText(r, b, depth+1)
		}
		ws()
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		seen := map[string]bool{}
		n := 0
		for range r.IntN(6) {
			var key strings.Builder
			decoded := randomStringText(r, &key)
			if seen[decoded] { // duplicate keys are refused by design
				continue
			}
			seen[decoded] = true
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			ws()
			b.WriteString(key.String())
			ws()
			b.WriteByte(':')
			randomText(r, b, depth+1)
		}
		ws()
		b.WriteByte('}')
	}
	ws()
}

// randomStringText writes a JSON string with random escaping and returns its decoded value.
func randomStringText(r *rand.Rand, b *strings.Builder) string {
	var decoded strings.Builder
	b.WriteByte('"')
	for range r.IntN(7) {
		c := randomRune(r)
		decoded.WriteRune(c)
		hexForm := "%04x"
		if r.IntN(2) == 0 {
			hexForm = "%04X"
		}
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '/' && r.IntN(2) == 0:
			b.WriteString(`\/`)
		case c < 0x20 || r.IntN(3) == 0: // escaped: controls always, others sometimes
			if c >= 0x10000 {
				hi, lo := utf16.EncodeRune(c)
				fmt.Fprintf(b, `\u`+hexForm+`\u`+hexForm, hi, lo)
			} else {
				fmt.Fprintf(b, `\u`+hexForm, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return decoded.String()
}

// randomNumberText returns JSON number text that does not overflow float64.
func randomNumberText(r *rand.Rand) string {
	for {
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteByte('-')
		}
		digits := func(n int) {
			for range n {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		if r.IntN(4) == 0 {
			b.WriteByte('0')
		} else {
			b.WriteByte(byte('1' + r.IntN(9)))
			digits(r.IntN(25))
		}
		if r.IntN(2) == 0 {
			b.WriteByte('.')
			if r.IntN(2) == 0 {
				b.WriteString(strings.Repeat("0", r.IntN(10)))
			}
			digits(1 + r.IntN(25))
		}
		if r.IntN(2) == 0 {
			b.WriteByte("eE"[r.IntN(2)])
			if r.IntN(2) == 0 {
				b.WriteByte("+-"[r.IntN(2)])
			}
			b.WriteString(strconv.Itoa(r.IntN(340)))
		}
		if _, err := strconv.ParseFloat(b.String(), 64); err == nil {
			return b.String()
		}
	}
}

// runReference pipes NDJSON through digest.mjs (with --canonical when canonical is set) and
// returns its output lines.
func runReference(t *testing.T, dir string, input []byte, canonical bool) [][]byte {
	t.Helper()
	args := []string{"digest.mjs"}
	if canonical {
		args = append(args, "--canonical")
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
}

// TestDifferentialAgainstJavaScript compares Canonicalize and Digest with the JavaScript
// reference on thousands of random values: Go values written as NDJSON by encoding/json (which
// JSON.parse reads back to the same values), then hand-made JSON texts in the forms an encoder
// would not produce, parsed on the Go side by the package's own parser. node runs once per mode
// over the whole file.
func TestDifferentialAgainstJavaScript(t *testing.T) {
	const nValues, nTexts = 3000, 2000
	dir := referenceDir()
	if dir == "" {
		unavailable(t, "the JavaScript reference in %s has no node_modules (run `make conformance`)", conformanceDir())
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(t, "node is not on PATH")
	}
	r := rand.New(rand.NewPCG(20261122, 8785))

	var input bytes.Buffer
	enc := json.NewEncoder(&input)
	enc.SetEscapeHTML(false)
	values := make([]any, 0, nValues+nTexts)
	for range nValues {
		v := randomValue(r, 0)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	for range nTexts {
		var b strings.Builder
		randomText(r, &b, 0)
		text := b.String()
		// decodeJSON: the texts may hold \u0000, which only ParseJSON refuses.
		v, err := decodeJSON([]byte(text), 64)
		if err != nil {
			t.Fatalf("the parser refused generated text %q: %v", text, err)
		}
		if strings.Contains(text, "\x00") || !utf8.ValidString(text) {
			t.Fatalf("generated text %q holds a raw NUL or invalid UTF-8", text)
		}
		input.WriteString(text)
		input.WriteByte('\n')
		values = append(values, v)
	}
	if dump := os.Getenv("SVC_DIFFERENTIAL_DUMP"); dump != "" { // for reproducing by hand
		if err := os.WriteFile(filepath.Clean(dump), input.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	canon := runReference(t, dir, input.Bytes(), true)
	digests := runReference(t, dir, input.Bytes(), false)
	if len(canon) != len(values) || len(digests) != len(values) {
		t.Fatalf("the reference answered %d and %d lines for %d values", len(canon), len(digests), len(values))
	}
	lines := bytes.Split(input.Bytes(), []byte("\n"))
	failures := 0
	for i, v := range values {
		got, err := Canonicalize(v)
		if err != nil {
			t.Fatalf("value %d (%s): %v", i, lines[i], err)
		}
		d, err := Digest(v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if !bytes.Equal(got, canon[i]) || d != string(digests[i]) {
			failures++
			t.Errorf("value %d: %s\n go %s %s\n js %s %s", i, lines[i], got, d, canon[i], digests[i])
			if failures == 10 {
				t.Fatal("too many differences")
			}
		}
	}
	if failures == 0 {
		t.Logf("%d values (%d Go values, %d JSON texts) agree with the JavaScript reference (%s)", len(values), nValues, nTexts, dir)
	}
}

// newRand returns a deterministic generator for the random tests.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 8785)) }
