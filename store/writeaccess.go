package store

import "github.com/svc-directory/svc/directory"

// What a write reads first: the namespace or registry it names, locked until its transaction
// ends, with the caller's role in it; a miss says which level was missing.

// NamespaceAccess is a namespace a write names, as the write sees it: its head, the caller's
// role in it ("" none) and its current verified domain.
type NamespaceAccess struct {
	directory.SealedNamespace
	Role          string
	Domain        string
	RegistryCount int64
}

// Namespace is the head as a lookup shows it.
func (a NamespaceAccess) Namespace() (directory.Namespace, error) {
	return a.SealedNamespace.Namespace(a.Domain, a.RegistryCount)
}

// NamespaceForWrite reads the namespace a write names (by id or verified domain) with the role
// of the user userID in it, in one statement; lock holds its row until the transaction ends.
// A namespace that does not exist is a *directory.NotFoundError (MissingNamespace).
func (t *Tx) NamespaceForWrite(ref, userID string, lock bool) (NamespaceAccess, error) {
	cond, arg := namespaceRefClause(ref)
	access, args := `'' AS role`, []any{arg}
	if userID != "" {
		access = `COALESCE((SELECT m.role FROM namespace_members m WHERE m.namespace_id = n.namespace_id AND m.user_id = ?), '') AS role`
		args = []any{userID, arg}
	}
	q := `SELECT n.*, ` + access + ` FROM namespaces n WHERE ` + cond
	if lock {
		q += t.s.d.forUpdate()
	}
	var rows []struct {
		RowNamespace `gorm:"embedded"`
		Role         string `gorm:"column:role"`
	}
	if err := t.db.Raw(q, args...).Scan(&rows).Error; err != nil {
		return NamespaceAccess{}, translate(err, "namespace")
	}
	if len(rows) == 0 {
		return NamespaceAccess{}, directory.NotFound(directory.MissingNamespace, ref)
	}
	h := rows[0].RowNamespace
	a := NamespaceAccess{SealedNamespace: h.sealed(), Role: rows[0].Role, RegistryCount: h.RegistryCount}
	if h.Domain != nil {
		a.Domain = *h.Domain
	}
	return a, nil
}

// RegistryAccess is a registry a write names, as the write sees it: its head, its namespace's
// current name, its count of published records, and the caller's role in the namespace ("" none) and whether
// the caller is a delegate of the registry.
type RegistryAccess struct {
	directory.SealedRegistry
	NamespaceName    string
	NamespaceState   string
	RecordCount      int64
	Role             string
	RegistryDelegate bool
}

// Registry is the head as a lookup shows it.
func (a RegistryAccess) Registry() (directory.Registry, error) {
	return a.SealedRegistry.Registry(a.NamespaceName, a.RecordCount)
}

// RegistryForWrite reads and locks (until the transaction ends) the registry a write names, by
// its namespace (id or verified domain) and name, with the namespace's name and the access of
// the user userID, in one statement. A registry that is not there is a
// *directory.NotFoundError (MissingRegistry, with the caller's role in the namespace, or
// MissingNamespace when the namespace is not there either, which a second statement tells).
func (t *Tx) RegistryForWrite(nsRef, name, userID string) (RegistryAccess, error) {
	cond, arg := namespaceRefClause(nsRef)
	var rows []struct {
		RowRegistry          `gorm:"embedded"`
		CreatedAt, UpdatedAt int64
		RecordCount          int64
		DraftCount           int64
		NamespaceName        string `gorm:"column:namespace_name"`
		NamespaceState       string `gorm:"column:namespace_state"`
		Role                 string `gorm:"column:role"`
		RegistryDelegate     bool   `gorm:"column:registry_delegate"`
	}
	// A write on the directory's own behalf (userID "") reads no access.
	access, args := `'' AS role, 0 AS registry_delegate`, []any{name, arg}
	if userID != "" {
		access = `COALESCE((SELECT m.role FROM namespace_members m WHERE m.namespace_id = n.namespace_id AND m.user_id = ?), '') AS role,
			EXISTS (SELECT 1 FROM registry_delegates d WHERE d.registry_id = g.registry_id AND d.user_id = ?) AS registry_delegate`
		args = []any{userID, userID, name, arg}
	}
	q := `SELECT g.*, n.name AS namespace_name, n.state AS namespace_state, ` + access + `
		FROM namespaces n JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		WHERE ` + cond + t.s.d.forUpdateOf("g")
	if err := t.db.Raw(q, args...).Scan(&rows).Error; err != nil {
		return RegistryAccess{}, translate(err, "registry")
	}
	if len(rows) == 0 {
		ns, err := t.NamespaceForWrite(nsRef, userID, false)
		if err != nil {
			return RegistryAccess{}, err
		}
		return RegistryAccess{NamespaceName: ns.Name, NamespaceState: ns.State, Role: ns.Role}, directory.NotFound(directory.MissingRegistry, name)
	}
	r := rows[0]
	return RegistryAccess{SealedRegistry: r.sealed(r.CreatedAt, r.UpdatedAt), NamespaceName: r.NamespaceName, NamespaceState: r.NamespaceState,
		RecordCount: r.RecordCount - r.DraftCount, Role: r.Role, RegistryDelegate: r.RegistryDelegate}, nil
}

// RecordOf is a record version of this registry as a lookup shows it.
func (a RegistryAccess) RecordOf(r directory.SealedRecord) (directory.Record, error) {
	schema, err := directory.DecodeObject(a.Schema)
	if err != nil {
		return directory.Record{}, err
	}
	return r.Record(a.NamespaceName, a.State, schema)
}
