package server_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	svc "github.com/svc-directory/svc"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// Every enum of the contract that the Go code also names has the same values on both sides:
// tags (recordschema), states and roles (store), entry kinds (proof).
func TestContractEnumsMatchTheGoConstants(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(svc.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	enum := func(schema, property string) []string {
		ref := doc.Components.Schemas[schema]
		if ref == nil || ref.Value.Properties[property] == nil {
			t.Fatalf("the contract has no %s.%s", schema, property)
		}
		var out []string
		for _, v := range ref.Value.Properties[property].Value.Enum {
			out = append(out, fmt.Sprint(v))
		}
		return out
	}
	kinds := []string{proof.KindNamespace.String(), proof.KindRegistry.String(), proof.KindRecord.String()}
	for _, c := range []struct {
		schema, property string
		goValues         []string
	}{
		{"Registry", "tag", append([]string{recordschema.TagCustom}, recordschema.StandardTags...)},
		{"Registry", "tag", []string{directory.TagCustom, directory.TagMembership, directory.TagPublicKey, directory.TagRevoke}},
		{"Registry", "state", directory.RegistryStates},
		{"Record", "state", []string{directory.StateDraft, directory.StateLive, directory.StateSuspended, directory.StateRevoked, directory.StateDeleted}},
		{"Namespace", "state", []string{directory.StateLive, directory.StateDeleted}},
		{"Record", "effective_state", directory.EffectiveRecordStates},
		{"Record", "registry_state", directory.RegistryStates},
		{"VerificationLog", "lookup_type", kinds},
		{"VerificationLog", "result", []string{store.ResultSuccess, store.ResultFailed}},
		{"Delegate", "role", []string{directory.RoleOwner, directory.RoleDelegate}},
		{"CreateWatchRequest", "watch_type", store.WatchTypes},
		{"CreateWatchRequest", "registry_tag", []string{directory.TagCustom, directory.TagMembership, directory.TagPublicKey, directory.TagRevoke}},
	} {
		contract := enum(c.schema, c.property)
		slices.Sort(contract)
		got := slices.Sorted(slices.Values(c.goValues))
		if !slices.Equal(contract, got) {
			t.Errorf("%s.%s: the contract says %v, the Go constants %v", c.schema, c.property, contract, got)
		}
	}
}
