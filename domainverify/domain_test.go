package domainverify

import "testing"

func TestNormalizeDomain(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Example.COM", "example.com", true},
		{"example.com.", "example.com", true},
		{"  sub.example.org ", "sub.example.org", true},
		{"bücher.example", "xn--bcher-kva.example", true},
		{"xn--bcher-kva.example", "xn--bcher-kva.example", true},
		{"a-b.example.com", "a-b.example.com", true},
		{"*.example.com", "", false},
		{"localhost", "", false},
		{"1.2.3.4", "", false},
		{"::1", "", false},
		{"a..b", "", false},
		{"-a.com", "", false},
		{"a-.com", "", false},
		{"http://a.com", "", false},
		{"a.com:443", "", false},
		{"a.com/x", "", false},
		{"a_b.com", "", false},
		{"", "", false},
		{"example.123", "", false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormalizeDomain(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("NormalizeDomain(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

func TestAllowPatterns(t *testing.T) {
	p, err := NormalizeAllowPattern("*.Example.com")
	if err != nil || p != "*.example.com" {
		t.Fatalf("pattern %q, %v", p, err)
	}
	if _, err := NormalizeAllowPattern("*.*.example.com"); err == nil {
		t.Fatal("double wildcard accepted")
	}
	tests := []struct {
		pattern, domain string
		want            bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "a.example.com", false},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
	}
	for _, tc := range tests {
		if got := MatchAllowPattern(tc.pattern, tc.domain); got != tc.want {
			t.Errorf("MatchAllowPattern(%q, %q) = %v", tc.pattern, tc.domain, got)
		}
	}
}
