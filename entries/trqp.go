package entries

import (
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// checkRegistryTRQP refuses a registry's meta whose TRQP declaration is malformed (400), or
// declares a pair that another registry of the namespace declares (409). It locks the namespace
// first, so that of two registries declaring one pair at once exactly one is written.
func checkRegistryTRQP(tx *store.Tx, namespaceID, registryName string, meta map[string]any) error {
	d, err := directory.ParseRegistryTRQP(meta)
	if err != nil || d == nil {
		return err
	}
	if err := tx.LockNamespace(namespaceID); err != nil {
		return err
	}
	metas, err := tx.RegistryMetas(namespaceID)
	if err != nil {
		return err
	}
	others := make(map[string]*directory.TRQPDeclaration, len(metas))
	for name, text := range metas {
		if name == registryName {
			continue
		}
		m, err := directory.DecodeObject(text)
		if err != nil {
			return err
		}
		// A declaration that no longer parses (written before the rule) declares nothing.
		if o, err := directory.ParseRegistryTRQP(m); err == nil && o != nil {
			others[name] = o
		}
	}
	return directory.TRQPConflict(d, others)
}

// checkNamespaceTRQP refuses a namespace's meta whose TRQP declaration is malformed (400).
func checkNamespaceTRQP(meta map[string]any) error {
	_, err := directory.ParseNamespaceTRQP(meta)
	return err
}
