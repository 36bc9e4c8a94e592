package server

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// A pattern read as a run of classes matches what regexp matches; the others are left to
// regexp.
func TestClassSeqIsRegexp(t *testing.T) {
	patterns := map[string]bool{ // pattern: read as a run of classes
		`^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$`: true,
		`^0x[0-9a-f]{32}$`:                    true,
		`^[1-9A-HJ-NP-Za-km-z]{1,44}$`:        true,
		`^ab*$`:                               true,
		`^[^a-c]+$`:                           true,
		`^x?$`:                                true,
		`^é[ü-ÿ]{2}\.$`:                       true,
		`^[a-z]{2,3}[0-9]$`:                   false, // a varying repeat before the last
		`^(entries|[0-9]{1,2})/(x[0-9]{3}/)*[0-9]{3}(\.p/[0-9]{1,3})?$`: false,
		`[a-z]+`:     false, // not anchored
		`^(?i)ab$`:   false,
		`^a.c$`:      false,
		`^a$|^b$`:    false,
		`^[a-z]+$\n`: false,
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("abcxyzABZ0189._~-/\\éüÿ\u00e0\ufffd漢 \n")
	for p, want := range patterns {
		seq, ok := compileClassSeq(p)
		if ok != want {
			t.Errorf("%s: read as a run of classes %v, want %v", p, ok, want)
		}
		if !ok {
			continue
		}
		re := regexp.MustCompile(p)
		tried := []string{"", "a", "ab", "abbb", "0x" + strings.Repeat("a", 32), "0x" + strings.Repeat("a", 33), "x", "é\u00fc\u00ff.", "\xff", "a\xff"}
		for i := 0; i < 3000; i++ {
			var sb strings.Builder
			for n := rng.IntN(40); n > 0; n-- {
				if rng.IntN(20) == 0 {
					sb.WriteByte(0xff)
				} else {
					sb.WriteRune(alphabet[rng.IntN(len(alphabet))])
				}
			}
			tried = append(tried, sb.String())
		}
		for _, v := range tried {
			if got, want := seq.match(v), re.MatchString(v); got != want {
				t.Errorf("%s on %q: %v, regexp %v", p, v, got, want)
			}
		}
	}
}
