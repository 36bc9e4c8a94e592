package directory

import (
	"errors"
	"strings"
	"testing"
)

func TestAPIKeyRules(t *testing.T) {
	if n, err := APIKeyName("  deploy "); err != nil || n != "deploy" {
		t.Fatalf("%q %v", n, err)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("é", 101), "a\tb"} {
		if _, err := APIKeyName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := APIKeyName(strings.Repeat("é", 100)); err != nil {
		t.Errorf("100 characters: %v", err)
	}
	if err := CanAddAPIKey(MaxLiveAPIKeys - 1); err != nil {
		t.Error(err)
	}
	if err := CanAddAPIKey(MaxLiveAPIKeys); !errors.Is(err, ErrConflict) {
		t.Errorf("at the bound: %v", err)
	}
}
