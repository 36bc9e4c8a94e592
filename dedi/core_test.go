package dedi

import (
	"context"
	"strings"
	"testing"
)

// TestCoreSchemas: the pinned copies are the bytes their provenance names, each compiles, and
// each declares the $id the table says.
func TestCoreSchemas(t *testing.T) {
	if len(CoreSchemas) != 7 {
		t.Fatalf("%d core schemas, want the draft's seven", len(CoreSchemas))
	}
	for _, c := range CoreSchemas {
		if got := c.sum(); got != c.SHA256 {
			t.Errorf("%s: sha-256 %s, pinned %s", c.Name, got, c.SHA256)
		}
		if c.compiled() == nil {
			t.Errorf("%s does not compile", c.Name)
		}
		id, _ := c.Document()["$id"].(string)
		if id != c.ID {
			t.Errorf("%s declares $id %q, the table %q", c.Name, id, c.ID)
		}
		if CoreSchemaFor(c.URL()) != c {
			t.Errorf("%s: its own pinned URL %s does not name it", c.Name, c.URL())
		}
		if c.ID != "" && CoreSchemaFor(c.ID) != c {
			t.Errorf("%s: its $id does not name it", c.Name)
		}
		if CoreSchemaMatching(c.Document()) != c {
			t.Errorf("%s: the inline copy is not recognised", c.Name)
		}
	}
}

func TestCoreSchemaFor(t *testing.T) {
	for url, want := range map[string]string{
		// the draft's own example, and the capitals of other repositories
		"https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/main/schemas/public_key.json":                 "Public_key",
		"https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/main/schemas/Public_key.json":                 "Public_key",
		"https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/main/schemas/Revoke.json":                     "Revoke",
		"https://raw.githubusercontent.com/nfh-trust-labs/DeDi/main/schemas/Membership.json":                                                          "Membership",
		"https://raw.githubusercontent.com/nfh-trust-labs/DeDi/main/schemas/beckn_subscriber.json":                                                    "beckn_subscriber",
		"https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/main/schemas/Beckn_subscriber_reference.json": "beckn_subscriber_reference",
		"https://github.com/sankarshanmukhopadhyay/decentralized-directory-protocol/blob/main/schemas/Public-Data-Set.json":                           "Public-Data-Set",
		"https://raw.githubusercontent.com/nfh-trust-labs/DeDi/main/schemas/Public_Rule_Set.json":                                                     "Public_Rule_Set",
		"https://dedi.global/public_key.json": "Public_key",
		"https://dedi.global/membership.json": "Membership",
		"https://dedi.global/revoke.json":     "Revoke",
		"https://DEDI.global/Revoke.json":     "Revoke",
		// not the pinned copy: another ref, another repository, another host, no $id
		"https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/0123456789abcdef0123456789abcdef01234567/schemas/revoke.json": "",
		"https://raw.githubusercontent.com/evil/DeDi/main/schemas/revoke.json":                                                                                        "",
		"https://example.org/schemas/revoke.json":                                            "",
		"https://dedi.global/beckn_subscriber.json":                                          "",
		"https://raw.githubusercontent.com/nfh-trust-labs/DeDi/main/schemas/revoke.json?x=1": "",
		"https://raw.githubusercontent.com/nfh-trust-labs/DeDi/main/other/revoke.json":       "",
	} {
		got := ""
		if c := CoreSchemaFor(url); c != nil {
			got = c.Name
		}
		if got != want {
			t.Errorf("%s: %q, want %q", url, got, want)
		}
	}
}

// TestCoreSchemasVerifyOffline: a file whose registry names a core schema by URL is checked
// against the pinned copy with no fetcher at all; a record that breaks it is refused.
func TestCoreSchemasVerifyOffline(t *testing.T) {
	for _, tc := range []struct {
		details map[string]any
		want    Outcome
	}{
		{map[string]any{"revoked_id": "cred-1", "reason": "lost"}, Authentic},
		{map[string]any{"reason": "no id"}, Invalid},
	} {
		fx := newFixture(t)
		fx.file.Registry.Schema = "https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/main/schemas/Revoke.json"
		fx.file.Records = []Record{{Name: "r1", Details: tc.details}}
		res := Verify(context.Background(), fx.input(t, now))
		if res.Outcome != tc.want {
			t.Fatalf("%v: %s (%s), want %s", tc.details, res.Outcome, res.Reason, tc.want)
		}
		if tc.want == Invalid && !strings.Contains(res.Reason, "revoked_id") {
			t.Fatalf("reason %q does not name the missing member", res.Reason)
		}
	}
}
