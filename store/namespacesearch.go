package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/svc-directory/svc/directory"
)

// Namespace discovery: the namespaces whose name, verified domain or id contains a text.

// NamespaceSearch pages a namespace search.
type NamespaceSearch struct {
	Q          string // contained in the name, domain or id, case-insensitively; "" matches every namespace
	Page, Size int
}

const nsSearchCols = `n.namespace_id, n.owner_id, n.created_by, n.genesis, n.created_at, n.version, n.version_count,
	n.name, n.description, n.meta, n.ttl, n.digest, n.proof_type, n.updated_at, n.domain, n.registry_count`

// SearchNamespaces finds namespaces by name, verified domain or id (each matched as containing
// q, case-insensitively, with %, _ and \ as themselves): exact matches first, then by name and
// id. It answers the page and the number of matches.
func (s *Store) SearchNamespaces(ctx context.Context, o NamespaceSearch) ([]directory.Namespace, int64, error) {
	w := &where{}
	order := " ORDER BY n.name, n.namespace_id"
	var orderArgs []any
	if o.Q != "" {
		cond, arg := s.d.containsText("n.name", o.Q)
		dcond, darg := s.d.containsText("n.domain", o.Q)
		icond, iarg := s.d.containsText("n.namespace_id", o.Q)
		w.add("("+cond+" OR "+dcond+" OR "+icond+")", arg, darg, iarg)
		lq := strings.ToLower(o.Q)
		order = " ORDER BY CASE WHEN lower(n.name) = ? OR n.domain = ? OR lower(n.namespace_id) = ? THEN 0 ELSE 1 END, n.name, n.namespace_id"
		orderArgs = []any{lq, strings.TrimSuffix(lq, "."), lq}
	}
	var total int64
	if err := s.rawRow(ctx, "SELECT COUNT(*) FROM namespaces n"+w.sql(), w.args, &total); err != nil {
		return nil, 0, translate(err, "count")
	}
	offset := (o.Page - 1) * o.Size
	if total == 0 || offset >= int(total) {
		return []directory.Namespace{}, total, nil
	}
	args := append(append(append([]any{}, w.args...), orderArgs...), o.Size, offset)
	rows, err := s.rawRows(ctx, "SELECT "+nsSearchCols+" FROM namespaces n"+w.sql()+order+" LIMIT ? OFFSET ?", args...)
	if err != nil {
		return nil, 0, translate(err, "namespaces")
	}
	out, err := scanNamespaceHeads(rows)
	return out, total, err
}

func scanNamespaceHeads(rows *sql.Rows) ([]directory.Namespace, error) {
	defer rows.Close()
	out := []directory.Namespace{}
	for rows.Next() {
		var h RowNamespace
		if err := rows.Scan(&h.NamespaceID, &h.OwnerID, &h.CreatedBy, &h.Genesis, &h.CreatedAt, &h.Version, &h.VersionCount,
			&h.Name, &h.Description, &h.Meta, &h.TTL, &h.Digest, &h.ProofType, &h.UpdatedAt, &h.Domain, &h.RegistryCount); err != nil {
			return nil, translate(err, "namespaces")
		}
		ns, err := h.namespace()
		if err != nil {
			return nil, err
		}
		out = append(out, ns)
	}
	return out, translate(rows.Err(), "namespaces")
}
