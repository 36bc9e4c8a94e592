package tlogproof_test

import (
	"strings"
	"testing"

	"github.com/svc-directory/svc/translog/tlogproof"
)

// makePolicyCases are the policy texts of the vectors: each valid one with what it parses to,
// each invalid one refused.
func makePolicyCases(t testing.TB, log, other, w1, w2, w3, w1note signer, pNone, pW1, p2of3, pNested string) []policyCase {
	t.Helper()
	L := "log " + log.vkey + "\n"
	good := func(name, text string) policyCase {
		p, err := tlogproof.ParsePolicy([]byte(text))
		if err != nil {
			t.Fatalf("policy %q: %v", name, err)
		}
		c := policyCase{Name: name, Text: text, OK: true, Groups: p.Groups, Quorum: p.Quorum}
		for _, l := range p.Logs {
			c.Logs = append(c.Logs, l.Key)
		}
		for _, w := range p.Witnesses {
			c.Witnesses = append(c.Witnesses, policyWitness{Name: w.Name, Key: w.Key})
		}
		return c
	}
	bad := func(name, text string) policyCase { return policyCase{Name: name, Text: text} }
	wrongHash := w2.name + "+00000000+" + strings.SplitN(w2.vkey, "+", 3)[2]
	upperHash := w2.name + "+" + strings.ToUpper(strings.SplitN(w2.vkey, "+", 3)[1]) + "+" + strings.SplitN(w2.vkey, "+", 3)[2]
	return []policyCase{
		good("no witnesses: quorum none", pNone),
		good("one witness", pW1),
		good("2 of 3 witnesses", p2of3),
		good("nested groups, comments, blank lines, tabs, a URL", pNested),
		good("a witness key given as a note key (0x01)", "log "+log.vkey+"\nwitness w1 "+w1note.vkey+"\nquorum w1\n"),
		good("no log (known from elsewhere), quorum none", "quorum none\n"),
		good("two logs", L+"log "+other.vkey+"\nquorum none\n"),
		good("a witness URL and any", L+"witness w1 "+w1.vkey+" https://w1.example/\nwitness w2 "+w2.vkey+"\ngroup g any w1 w2\nquorum g\n"),
		good("a group of one, all", L+"witness w1 "+w1.vkey+"\ngroup g all w1\nquorum g\n"),
		good("a comment after leading spaces, and a trailing one", "  # a comment\n"+L+"quorum none\n#\n"),
		good("a threshold with a leading zero is decimal", L+"witness w1 "+w1.vkey+"\nwitness w2 "+w2.vkey+"\ngroup g 02 w1 w2\nquorum g\n"),
		good("non-ASCII names are opaque bytes", L+"witness \u212a "+w1.vkey+"\nwitness K "+w2.vkey+"\ngroup g all \u212a K\nquorum g\n"),

		bad("empty", ""),
		bad("no quorum line", L),
		bad("two quorum lines", L+"quorum none\nquorum none\n"),
		bad("the last line without a newline", L+"quorum none"),
		bad("a carriage return", strings.ReplaceAll(pNone, "\n", "\r\n")),
		bad("a NUL byte", L+"quorum none\x00\n"),
		bad("the quorum names an undefined witness", L+"quorum w1\n"),
		bad("the quorum names a witness defined after it", L+"quorum w1\nwitness w1 "+w1.vkey+"\n"),
		bad("a group member undefined", L+"witness w1 "+w1.vkey+"\ngroup g all w1 w2\nquorum g\n"),
		bad("a member listed twice in one group", L+"witness w1 "+w1.vkey+"\ngroup g 1 w1 w1\nquorum g\n"),
		bad("a member listed in two groups", L+"witness w1 "+w1.vkey+"\nwitness w2 "+w2.vkey+"\ngroup a any w1\ngroup b any w1 w2\nquorum b\n"),
		bad("none as a group member", L+"witness w1 "+w1.vkey+"\ngroup g any w1 none\nquorum g\n"),
		bad("a witness named none", L+"witness none "+w1.vkey+"\nquorum none\n"),
		bad("a name defined twice", L+"witness w1 "+w1.vkey+"\ngroup w1 any w1\nquorum w1\n"),
		bad("two witnesses with one public key", L+"witness w1 "+w1.vkey+"\nwitness w1b "+w1note.vkey+"\nquorum w1\n"),
		bad("two logs with one public key", L+L+"quorum none\n"),
		bad("a threshold of 0", L+"witness w1 "+w1.vkey+"\ngroup g 0 w1\nquorum g\n"),
		bad("a threshold above the members", L+"witness w1 "+w1.vkey+"\ngroup g 2 w1\nquorum g\n"),
		bad("a threshold that is not a number", L+"witness w1 "+w1.vkey+"\ngroup g 1x w1\nquorum g\n"),
		bad("a negative threshold", L+"witness w1 "+w1.vkey+"\ngroup g -1 w1\nquorum g\n"),
		bad("a group without members", L+"witness w1 "+w1.vkey+"\ngroup g all\nquorum w1\n"),
		bad("an unknown line", L+"witnesses w1 "+w1.vkey+"\nquorum none\n"),
		bad("a log line with too many fields", "log "+log.vkey+" https://a https://b\nquorum none\n"),
		bad("a witness line without a key", L+"witness w1\nquorum none\n"),
		bad("a quorum line with two names", L+"witness w1 "+w1.vkey+"\nquorum w1 w1\n"),
		bad("a log key whose hash is not its own", "log "+log.name+"+00000000+"+strings.SplitN(log.vkey, "+", 3)[2]+"\nquorum none\n"),
		bad("a log key of the cosignature type (0x04)", "log "+w1.vkey+"\nquorum none\n"),
		bad("a witness key whose hash is not its own", L+"witness w2 "+wrongHash+"\nquorum w2\n"),
		bad("a witness key with an uppercase hash", L+"witness w2 "+upperHash+"\nquorum w2\n"),
		bad("a witness key that is not base64", L+"witness w2 "+w2.name+"+"+strings.SplitN(w2.vkey, "+", 3)[1]+"+!!!!\nquorum w2\n"),
	}
}

// makeFormatCases: the policy the service serves for its configuration.
func makeFormatCases(t testing.TB, log, w1, w2, w3, w1note signer) []formatCase {
	t.Helper()
	c := func(name string, ws []string, q int) formatCase {
		p, err := tlogproof.NewPolicy(log.vkey, ws, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return formatCase{Name: name, LogKey: log.vkey, WitnessKeys: ws, Quorum: q, Text: string(p.Format())}
	}
	return []formatCase{
		c("no witnesses", nil, 0),
		c("one witness", []string{w1.vkey}, 1),
		c("one witness configured by its note key", []string{w1note.vkey}, 1),
		c("2 of 3", []string{w1.vkey, w2.vkey, w3.vkey}, 2),
		c("all of 2", []string{w1.vkey, w2.vkey}, 2),
		c("1 of 2", []string{w1.vkey, w2.vkey}, 1),
	}
}
