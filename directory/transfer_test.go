package directory

import (
	"errors"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func TestTransferRules(t *testing.T) {
	owner := Access{Role: RoleOwner}
	if err := owner.TransferOwnership("u1", "u2"); err != nil {
		t.Fatal(err)
	}
	if err := owner.TransferOwnership("u1", "u1"); !errors.Is(err, ErrConflict) {
		t.Errorf("to the owner: %v", err)
	}
	for _, a := range []Access{{Role: RoleDelegate}, {}, {RegistryDelegate: true}} {
		if err := a.TransferOwnership("u1", "u2"); !errors.Is(err, ErrForbidden) {
			t.Errorf("%+v: %v", a, err)
		}
	}
	n, err := NewNamespace("u1", "did:web:x", NamespaceInput{Name: "Acme"}, StampAt(testNow))
	if err != nil {
		t.Fatal(err)
	}
	next, err := n.Transfer("u2", StampAt(testNow))
	if err != nil || next.OwnerID != "u2" || next.VersionCount != 2 || next.Version == n.Version || next.Digest == n.Digest ||
		next.NamespaceContent != n.NamespaceContent {
		t.Fatalf("transfer: %+v %v", next, err)
	}
}
