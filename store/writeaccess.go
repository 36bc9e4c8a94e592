package store

import "github.com/svc-directory/svc/directory"

// What a write reads first: the namespace or registry it names, locked until its transaction
// ends, and then, in a statement of its own, what the caller is to it; a miss says which level
// was missing.
//
// The caller's access is read after the locks that order every change of it, never in the
// statement that waits for them: on Postgres under READ COMMITTED a statement reads the
// snapshot it started with, so a role read in the same statement as a FOR UPDATE that waited
// would be the role from before the write it waited for (two transfers by one owner both
// succeeding). Every write that changes who may write locks what it changes FOR UPDATE: the
// namespace (a transfer, a delegate added or removed), the registry (a registry delegate), the
// API key (a revocation) and the user (disabled); every write that is authorized holds those
// rows FOR KEY SHARE from the statement that reads its access to its commit.

// NamespaceAccess is a namespace a write names, as the write sees it: its head, what the
// caller is to it (read after the lock, callerAccess) and its current verified domain.
type NamespaceAccess struct {
	directory.SealedNamespace
	directory.Access
	Domain        string
	RegistryCount int64
}

// Namespace is the head as a lookup shows it.
func (a NamespaceAccess) Namespace() (directory.Namespace, error) {
	return a.SealedNamespace.Namespace(a.Domain, a.RegistryCount)
}

// NamespaceForWrite reads the namespace a write names (by id or verified domain) and then,
// in a statement of its own, what the principal p is to it (callerAccess). lock holds its row
// until the transaction ends (FOR UPDATE: the writes that change who may write take it);
// otherwise the row is held against those writes only (FOR KEY SHARE), so that the role read
// stays true until the commit. A namespace that does not exist is a *directory.NotFoundError
// (MissingNamespace).
func (t *Tx) NamespaceForWrite(ref string, p Principal, lock bool) (NamespaceAccess, error) {
	cond, arg := namespaceRefClause(ref)
	q := `SELECT n.* FROM namespaces n WHERE ` + cond
	if lock {
		q += t.s.d.forUpdate()
	} else {
		q += t.s.d.forKeyShareOf("n")
	}
	var rows []RowNamespace
	if err := t.db.Raw(q, arg).Scan(&rows).Error; err != nil {
		return NamespaceAccess{}, translate(err, "namespace")
	}
	if len(rows) == 0 {
		return NamespaceAccess{}, directory.NotFound(directory.MissingNamespace, ref)
	}
	h := rows[0]
	access, err := t.callerAccess(p, h.NamespaceID, "")
	if err != nil {
		return NamespaceAccess{}, err
	}
	a := NamespaceAccess{SealedNamespace: h.sealed(), Access: access, RegistryCount: h.RegistryCount}
	if h.Domain != nil {
		a.Domain = *h.Domain
	}
	return a, nil
}

// RegistryAccess is a registry a write names, as the write sees it: its head, its namespace's
// current name, its count of published records, and what the caller is to the namespace and
// the registry (read after the lock, callerAccess).
type RegistryAccess struct {
	directory.SealedRegistry
	directory.Access
	NamespaceName  string
	NamespaceState string
	RecordCount    int64
}

// Registry is the head as a lookup shows it.
func (a RegistryAccess) Registry() (directory.Registry, error) {
	return a.SealedRegistry.Registry(a.NamespaceName, a.RecordCount)
}

// RegistryForWrite reads and locks (until the transaction ends) the registry a write names, by
// its namespace (id or verified domain) and name, with the namespace's name, and then what the
// principal p is to them (callerAccess). The namespace's row is held against the writes that
// change who may write in it (FOR KEY SHARE). A registry that is not there is a
// *directory.NotFoundError (MissingRegistry, with the caller's access to the namespace, or
// MissingNamespace when the namespace is not there either, which a second statement tells).
func (t *Tx) RegistryForWrite(nsRef, name string, p Principal) (RegistryAccess, error) {
	cond, arg := namespaceRefClause(nsRef)
	var rows []struct {
		RowRegistry          `gorm:"embedded"`
		CreatedAt, UpdatedAt int64
		RecordCount          int64
		DraftCount           int64
		NamespaceName        string `gorm:"column:namespace_name"`
		NamespaceState       string `gorm:"column:namespace_state"`
	}
	q := `SELECT g.*, n.name AS namespace_name, n.state AS namespace_state
		FROM namespaces n JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		WHERE ` + cond + t.s.d.forUpdateOf("g") + t.s.d.forKeyShareOf("n")
	if err := t.db.Raw(q, name, arg).Scan(&rows).Error; err != nil {
		return RegistryAccess{}, translate(err, "registry")
	}
	if len(rows) == 0 {
		ns, err := t.NamespaceForWrite(nsRef, p, false)
		if err != nil {
			return RegistryAccess{}, err
		}
		return RegistryAccess{NamespaceName: ns.Name, NamespaceState: ns.State, Access: ns.Access}, directory.NotFound(directory.MissingRegistry, name)
	}
	r := rows[0]
	access, err := t.callerAccess(p, r.NamespaceID, r.RegistryID)
	if err != nil {
		return RegistryAccess{}, err
	}
	return RegistryAccess{SealedRegistry: r.sealed(r.CreatedAt, r.UpdatedAt), Access: access, NamespaceName: r.NamespaceName,
		NamespaceState: r.NamespaceState, RecordCount: r.RecordCount - r.DraftCount}, nil
}

// RecordOf is a record version of this registry as a lookup shows it.
func (a RegistryAccess) RecordOf(r directory.SealedRecord) (directory.Record, error) {
	schema, err := directory.DecodeObject(a.Schema)
	if err != nil {
		return directory.Record{}, err
	}
	return r.Record(a.NamespaceName, a.State, schema)
}

// Principal is who a write acts for: a user, and the API key its request presented. A write on
// the directory's own behalf has neither (UserID ""); a user's own background work (a CSV job)
// has no key (KeyID "").
type Principal struct {
	UserID string
	KeyID  string
}

// callerAccess reads what the principal p is to the namespace (and to the registry registryID,
// "" for none): its role there, whether it is a delegate of the registry, and whether its key
// has been revoked or its user disabled since the request was authenticated (Lapsed). It runs
// in a statement of its own, after the namespace's or registry's lock was taken, so that it
// reads every change of them that committed before; the key's and the user's rows are held
// FOR KEY SHARE until the commit, against a revocation or a disabling (which lock them FOR
// UPDATE). A principal without a user (the directory's own writes) reads no access.
func (t *Tx) callerAccess(p Principal, namespaceID, registryID string) (directory.Access, error) {
	if p.UserID == "" {
		return directory.Access{}, nil
	}
	var rows []struct {
		Role             string `gorm:"column:role"`
		RegistryDelegate bool   `gorm:"column:registry_delegate"`
		Lapsed           bool   `gorm:"column:lapsed"`
	}
	cols := `COALESCE((SELECT m.role FROM namespace_members m WHERE m.namespace_id = ? AND m.user_id = u.id), '') AS role,
		EXISTS (SELECT 1 FROM registry_delegates d WHERE d.registry_id = ? AND d.user_id = u.id) AS registry_delegate, `
	args := []any{namespaceID, registryID}
	var q string
	if p.KeyID != "" {
		q = `SELECT ` + cols + `(u.disabled OR k.revoked_at IS NOT NULL) AS lapsed
			FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.id = ? AND u.id = ?` + t.s.d.forKeyShareOf("k, u")
		args = append(args, p.KeyID, p.UserID)
	} else {
		q = `SELECT ` + cols + `u.disabled AS lapsed FROM users u WHERE u.id = ?` + t.s.d.forKeyShareOf("u")
		args = append(args, p.UserID)
	}
	if err := t.db.Raw(q, args...).Scan(&rows).Error; err != nil {
		return directory.Access{}, translate(err, "access")
	}
	if len(rows) == 0 {
		// The key or the user is gone: nothing it held is held any more.
		return directory.Access{Lapsed: true}, nil
	}
	r := rows[0]
	if r.Lapsed {
		return directory.Access{Lapsed: true}, nil
	}
	return directory.Access{Role: r.Role, RegistryDelegate: r.RegistryDelegate}, nil
}
