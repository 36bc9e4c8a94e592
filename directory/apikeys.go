package directory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rules of a user's self-service API keys.

// MaxLiveAPIKeys is how many live (unrevoked) API keys a user may hold.
const MaxLiveAPIKeys = 20

// maxAPIKeyName bounds a key's name, in characters.
const maxAPIKeyName = 100

// APIKeyName checks a key's name and returns it trimmed: 1-100 characters, not blank, no
// control characters.
func APIKeyName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", Invalid.With("name must not be blank")
	case utf8.RuneCountInString(n) > maxAPIKeyName:
		return "", Invalid.With("name is longer than %d characters", maxAPIKeyName)
	case strings.IndexFunc(n, unicode.IsControl) >= 0:
		return "", Invalid.With("name has control characters")
	}
	return n, nil
}

// CanAddAPIKey says whether a user holding live keys may make one more.
func CanAddAPIKey(live int) error {
	if live >= MaxLiveAPIKeys {
		return Conflict.With("you hold %d live API keys, the most allowed; revoke one first", MaxLiveAPIKeys)
	}
	return nil
}
