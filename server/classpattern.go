package server

import (
	"regexp/syntax"
	"unicode/utf8"
)

// classSeq is a pattern that is a run of character classes between ^ and $, each repeated a
// fixed number of times but the last, such as the contract's names
// (^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$) and versions (^0x[0-9a-f]{32}$): matched rune by rune,
// without regexp's machine. Only the last class may repeat a varying number of times, so taking
// as many runes as each class takes is the only way to match.
type classSeq []classRep

// classRep is one character class (ranges: pairs of first and last rune) repeated min to max
// times (max -1: no bound).
type classRep struct {
	ranges   []rune
	min, max int
}

// compileClassSeq parses pattern as regexp.Compile does (Perl syntax) and returns it as a
// classSeq, or false when it is anything else (alternations, groups, anchors elsewhere, case
// folding, a varying repeat before the last).
func compileClassSeq(pattern string) (classSeq, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 3 {
		return nil, false
	}
	subs := re.Sub
	if subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return nil, false
	}
	var seq classSeq
	for _, sub := range subs[1 : len(subs)-1] {
		reps, ok := classReps(sub)
		if !ok {
			return nil, false
		}
		seq = append(seq, reps...)
	}
	for _, r := range seq[:len(seq)-1] {
		if r.min != r.max {
			return nil, false
		}
	}
	return seq, true
}

// classReps reads one element of the concatenation: a literal (one class per rune), a class,
// or a repeat of a one-rune literal or a class.
func classReps(re *syntax.Regexp) ([]classRep, bool) {
	if re.Flags&syntax.FoldCase != 0 {
		return nil, false
	}
	switch re.Op {
	case syntax.OpLiteral:
		reps := make([]classRep, len(re.Rune))
		for i, r := range re.Rune {
			reps[i] = classRep{ranges: []rune{r, r}, min: 1, max: 1}
		}
		return reps, true
	case syntax.OpCharClass:
		return []classRep{{ranges: re.Rune, min: 1, max: 1}}, true
	case syntax.OpRepeat, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		one, ok := classReps(re.Sub[0])
		if !ok || len(one) != 1 {
			return nil, false
		}
		r := one[0]
		switch re.Op {
		case syntax.OpRepeat:
			r.min, r.max = re.Min, re.Max
		case syntax.OpStar:
			r.min, r.max = 0, -1
		case syntax.OpPlus:
			r.min, r.max = 1, -1
		default:
			r.min, r.max = 0, 1
		}
		return []classRep{r}, true
	}
	return nil, false
}

// match reports whether the whole of s matches (invalid UTF-8 reads as U+FFFD, one byte at a
// time, as regexp reads it).
func (q classSeq) match(s string) bool {
	i := 0
	for _, r := range q {
		n := 0
		for (r.max < 0 || n < r.max) && i < len(s) {
			c, size := utf8.DecodeRuneInString(s[i:])
			if !r.has(c) {
				break
			}
			i, n = i+size, n+1
		}
		if n < r.min {
			return false
		}
	}
	return i == len(s)
}

func (r classRep) has(c rune) bool {
	for k := 0; k+1 < len(r.ranges); k += 2 {
		if r.ranges[k] <= c && c <= r.ranges[k+1] {
			return true
		}
	}
	return false
}
