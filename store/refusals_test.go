package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// The store's expected refusals carry their kind and the client's sentence (store.Error), made
// where the store knows what happened; their text and their errors.Is chain are unchanged.
// A not-found carries no sentence (the caller names what its request named).
func TestRefusalsCarryTheirMessage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newOwner(t, s)
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		schema := map[string]any{"type": "object"}
		in := directory.RegistryInput{RegistryName: "employees", Tag: directory.TagCustom, Schema: schema}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, in); err != nil {
			t.Fatal(err)
		}
		refusal := func(what string, err error, kind, rule error, text, msg string) {
			t.Helper()
			var se *directory.Error
			switch {
			case !errors.As(err, &se):
				t.Errorf("%s: %v is not a store.Error", what, err)
			case se.Kind != kind || se.Message != msg || err.Error() != text:
				t.Errorf("%s: kind %v, message %q, text %q; want %v, %q, %q", what, se.Kind, se.Message, err.Error(), kind, msg, text)
			case !errors.Is(err, kind) || (rule != nil && !errors.Is(err, rule)):
				t.Errorf("%s: %v does not match %v and %v", what, err, kind, rule)
			}
		}
		_, err = s.CreateRegistry(ctx, ns.NamespaceID, creator, in)
		refusal("taken registry", err, directory.ErrConflict, directory.ErrNameTaken,
			`conflict: the name is taken: registry "employees" already exists in the namespace`,
			`Conflict: the name is taken: registry "employees" already exists in the namespace`)

		_, err = s.AddRecords(ctx, ns.NamespaceID, "employees", creator, []directory.RecordInput{{RecordName: "x"}, {RecordName: "x"}})
		refusal("twice in a batch", err, directory.ErrConflict, directory.ErrNameTaken,
			`conflict: the name is taken: record "x" appears twice in the batch`,
			`Conflict: the name is taken: record "x" appears twice in the batch`)

		_, err = s.UpdateRegistry(ctx, ns.NamespaceID, "employees", "0x"+strings.Repeat("0", 32), directory.RegistryPatch{Description: new(string)})
		refusal("stale If-Match", err, directory.ErrPrecondition, directory.ErrStaleVersion,
			"precondition failed: the entry has a newer version",
			"Precondition failed: the entry has changed since that version (If-Match); nothing was written")

		big := map[string]any{"x": strings.Repeat("a", directory.MaxDetails)}
		_, err = s.AddRecord(ctx, ns.NamespaceID, "employees", creator, directory.RecordInput{RecordName: "big", Details: big})
		n := len(`{"x":""}`) + directory.MaxDetails
		refusal("details too large", err, directory.ErrInvalid, nil,
			fmt.Sprintf("invalid value: details are %d bytes; at most %d (64 KiB) are allowed", n, directory.MaxDetails),
			fmt.Sprintf("Invalid input: details are %d bytes; at most %d (64 KiB) are allowed", n, directory.MaxDetails))

		err = inTx(ctx, s, func(tx *store.Tx) error { return tx.RemoveDelegate(ns.NamespaceID, owner.Email) })
		refusal("owner", err, directory.ErrConflict, directory.ErrOwner, "conflict: the owner cannot be removed", "Conflict: the owner cannot be removed")

		// A uniqueness the database refuses (translate) reads as the database said it.
		if err := s.AddProfileKey(ctx, owner.Email, "z6Mk"); err != nil {
			t.Fatal(err)
		}
		err = s.AddProfileKey(ctx, owner.Email, "z6Mk")
		var se *directory.Error
		if !errors.As(err, &se) || se.Kind != directory.ErrConflict || se.Message != "Conflict: "+err.Error() || !errors.Is(err, directory.ErrConflict) {
			t.Errorf("profile key twice: %#v", err)
		}

		_, err = s.GetRegistry(ctx, ns.NamespaceID, "nope", directory.VersionSel{})
		if !errors.Is(err, directory.ErrNotFound) || errors.As(err, &se) {
			t.Errorf("not found: %v", err)
		}
	})
}
