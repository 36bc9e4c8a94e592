package directory_test

import (
	"reflect"
	"testing"

	"github.com/svc-directory/svc/directory"
)

// TestConfusableNames: the Cyrillic а beside the Latin a is flagged both ways, other names of
// the registry are not, case is told apart, and a name is not confusable with itself.
func TestConfusableNames(t *testing.T) {
	got := directory.Confusable([]string{"admin", "\u0430dmin", "Admin", "user", "admin", "paypal", "p\u0430yp\u0430l", "ad\u202emin"})
	want := map[string][]string{
		"admin":            {"\u0430dmin"},
		"\u0430dmin":       {"admin"},
		"paypal":           {"p\u0430yp\u0430l"},
		"p\u0430yp\u0430l": {"paypal"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Confusable: %q, want %q", got, want)
	}
	if directory.Skeleton("\u0430dmin") != directory.Skeleton("admin") {
		t.Fatal("the skeletons of admin and its Cyrillic look-alike differ")
	}
}

// TestMixedScripts: a Latin name with one Cyrillic letter mixes scripts; one script, digits
// and punctuation, and Japanese (Han with kana) do not.
func TestMixedScripts(t *testing.T) {
	for name, want := range map[string][]string{
		"\u0430dmin":                     {"Cyrillic", "Latin"},
		"p\u0430yp\u0430l":               {"Cyrillic", "Latin"},
		"admin":                          nil,
		"\u0430\u0434\u043c\u0438\u043d": nil, // all Cyrillic
		"<img src=x onerror=alert(1)>":   nil,
		"../../etc/passwd":               nil,
		"2026-01-01":                     nil,
		"日本語のテキスト":                       nil,
		"한국어漢字":                          nil,
		"αβγ-abc":                        {"Greek", "Latin"},
		"ad\u202emin":                    nil, // one script: the control is shown by the escape
	} {
		if got := directory.MixedScripts(name); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}
