package directory

import "testing"

func TestCheckEntryID(t *testing.T) {
	for _, ok := range []string{NewNamespaceID(), NewUUID(), "0193a1b2-0000-7000-8000-000000000001"} {
		if err := CheckEntryID(ok); err != nil {
			t.Errorf("CheckEntryID(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "did:svc:", "did:svc:0OIl", "did:svc:abc", "did:web:example.org", "0193A1B2-0000-7000-8000-000000000001",
		"{0193a1b2-0000-7000-8000-000000000001}", "urn:uuid:0193a1b2-0000-7000-8000-000000000001", "0193a1b2000070008000000000000001", "people"} {
		if err := CheckEntryID(bad); err == nil {
			t.Errorf("CheckEntryID(%q) accepted it", bad)
		}
	}
}
