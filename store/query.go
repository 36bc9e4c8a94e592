// Lists: the paged registry and record queries (search is in search.go).

package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/svc-directory/svc/directory"
)

// ListOptions filter and page the registry and record queries.
type ListOptions struct {
	From, To time.Time // inclusive UTC days of the last update (zero: unbounded)
	// State filters registries by state, records by the state they read as (EffectiveState);
	// "" for any.
	State      string
	Name       string // partial, case-insensitive name match
	Sort       string // date (newest first), name, id (ascending), status (state, then name)
	Page, Size int
	AsOf       time.Time // the end of this UTC day (zero: now)
	// WithDrafts lists records' draft versions too: for the namespace's owner and delegates
	// only. Anyone else sees a record from its first public version on (drafts are private).
	WithDrafts bool
}

func (o ListOptions) offset() int { return (o.Page - 1) * o.Size }

// dayStart is the first instant of t's UTC day, in ms.
func dayStart(t time.Time) int64 {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).UnixMilli()
}

func orderBy(sort, name, id string) string { return orderSQL(sort, name, id, false) }

// orderSQL is the ORDER BY of a list sort; reversed, every key runs the other way (the same
// index read backwards).
func orderSQL(sort, name, id string, reversed bool) string {
	var keys []string
	switch sort {
	case "name":
		keys = []string{"r." + name, "r." + id}
	case "id":
		keys = []string{"r." + id}
	case "status":
		keys = []string{"r.state", "r." + name, "r." + id}
	default:
		keys = []string{"r.updated_at DESC", "r." + id}
	}
	if reversed {
		for i, k := range keys {
			if c, ok := strings.CutSuffix(k, " DESC"); ok {
				keys[i] = c
			} else {
				keys[i] = k + " DESC"
			}
		}
	}
	return " ORDER BY " + strings.Join(keys, ", ")
}

// pageWindow is where a page lies for a read from the nearer end: a page in the second half
// of total rows is read in the reversed order (limit and offset counted from the end), so that
// no page skips more than half the rows.
func pageWindow(offset, size int, total int64) (limit, off int, reversed bool) {
	if int64(offset) <= total/2 {
		return size, offset, false
	}
	end := min(int64(offset+size), total)
	return int(end) - offset, int(total - end), true
}

const registryListCols = `r.registry_id, r.namespace_id, r.registry_name, r.tag, r.schema, r.created_by, r.genesis, r.version,
	r.version_count, r.description, r.meta, r.ttl, r.state, r.query_allowed, r.digest, r.proof_type, r.updated_at, r.created_at,
	r.record_count - r.draft_count`

func scanRegistries(rows *sql.Rows) ([]directory.Registry, error) {
	defer rows.Close()
	var out []directory.Registry
	for rows.Next() {
		var r regRead
		if err := rows.Scan(&r.RegistryID, &r.NamespaceID, &r.RegistryName, &r.Tag, &r.Schema, &r.CreatedBy, &r.Genesis, &r.Version,
			&r.VersionCount, &r.Description, &r.Meta, &r.TTL, &r.State, &r.QueryAllowed, &r.Digest, &r.ProofType,
			&r.VersionCreatedAt, &r.HeadCreatedAt, &r.RecordCount); err != nil {
			return nil, translate(err, "registries")
		}
		reg, err := r.registry()
		if err != nil {
			return nil, err
		}
		out = append(out, reg)
	}
	return out, translate(rows.Err(), "registries")
}

// ListRegistries pages the registries of a namespace, as they are or as they stood at AsOf.
func (s *Store) ListRegistries(ctx context.Context, namespaceID string, o ListOptions) ([]directory.Registry, int64, error) {
	rel := "registries"
	var relArgs []any
	if !o.AsOf.IsZero() {
		rel = `(SELECT v.registry_id, v.namespace_id, v.registry_name, v.tag, v.schema, v.created_by, v.genesis, v.version,
			v.version_count, v.description, v.meta, v.ttl, v.state, v.query_allowed, v.digest, v.proof_type,
			v.created_at AS updated_at, g.created_at, g.record_count, g.draft_count
			FROM registry_versions v JOIN registries g ON g.registry_id = v.registry_id
			JOIN (SELECT registry_id, MAX(version_count) AS vc FROM registry_versions WHERE namespace_id = ? AND created_at < ?
				GROUP BY registry_id) m ON m.registry_id = v.registry_id AND m.vc = v.version_count)`
		relArgs = []any{namespaceID, o.AsOf.UnixMilli()}
	}
	w := &where{}
	w.add("r.namespace_id = ?", namespaceID)
	w.add("r.state <> ?", directory.StateDeleted) // a deleted registry is missing (directory.Gone)
	s.listFilters(w, o, "registry_name")
	if o.State != "" {
		w.add("r.state = ?", o.State)
	}
	return queryPage(ctx, s, "SELECT "+registryListCols+" FROM "+rel+" r", relArgs, w, orderBy(o.Sort, "registry_name", "registry_id"), o, scanRegistries)
}

func (s *Store) listFilters(w *where, o ListOptions, nameCol string) {
	if !o.From.IsZero() {
		w.add("r.updated_at >= ?", dayStart(o.From))
	}
	if !o.To.IsZero() {
		w.add("r.updated_at < ?", dayStart(o.To)+24*3600*1000)
	}
	if o.Name != "" {
		cond, arg := s.d.containsName("r."+nameCol, o.Name)
		w.add(cond, arg)
	}
}

// queryPage runs the count and the page of a list query.
func queryPage[T any](ctx context.Context, s *Store, selectFrom string, relArgs []any, w *where, order string, o ListOptions,
	scan func(*sql.Rows) ([]T, error)) ([]T, int64, error) {
	args := append(append([]any{}, relArgs...), w.args...)
	from := selectFrom[strings.Index(selectFrom, " FROM "):]
	var total int64
	if err := s.rawRow(ctx, "SELECT COUNT(*)"+from+w.sql(), args, &total); err != nil {
		return nil, 0, translate(err, "count")
	}
	if total == 0 || o.offset() >= int(total) {
		return []T{}, total, nil
	}
	rows, err := s.rawRows(ctx, selectFrom+w.sql()+order+" LIMIT ? OFFSET ?", append(args, o.Size, o.offset())...)
	if err != nil {
		return nil, 0, translate(err, "list")
	}
	out, err := scan(rows)
	if out == nil {
		out = []T{}
	}
	return out, total, err
}

const recordListCols = `r.record_id, r.registry_id, r.namespace_id, r.registry_name, r.record_name, r.created_by, r.genesis,
	r.version, r.version_count, r.description, r.details, r.meta, r.ttl, r.state, r.valid_till, r.digest, r.proof_type,
	r.updated_at, r.created_at`

func scanRecords(rows *sql.Rows) ([]directory.Record, error) {
	defer rows.Close()
	var out []directory.Record
	for rows.Next() {
		var r recRead
		if err := rows.Scan(&r.RecordID, &r.RegistryID, &r.NamespaceID, &r.RegistryName, &r.RecordName, &r.CreatedBy, &r.Genesis,
			&r.Version, &r.VersionCount, &r.Description, &r.Details, &r.Meta, &r.TTL, &r.State, &r.ValidTill, &r.Digest,
			&r.ProofType, &r.VersionCreatedAt, &r.HeadCreatedAt); err != nil {
			return nil, translate(err, "records")
		}
		rec, err := r.record()
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, translate(rows.Err(), "records")
}

// ListRecords pages the records of a registry, as they are or as they stood at AsOf.
func (s *Store) ListRecords(ctx context.Context, registryID string, o ListOptions) ([]directory.Record, int64, error) {
	rel := "records"
	var relArgs []any
	publicOnly := ""
	if !o.WithDrafts {
		publicOnly = " AND state <> 'draft'"
	}
	if !o.AsOf.IsZero() {
		rel = `(SELECT v.record_id, v.registry_id, v.namespace_id, v.registry_name, v.record_name, v.created_by, v.genesis,
			v.version, v.version_count, v.description, v.details, v.meta, v.ttl, v.state, v.valid_till, v.digest, v.proof_type,
			v.created_at AS updated_at, h.created_at
			FROM record_versions v JOIN records h ON h.record_id = v.record_id
			JOIN (SELECT record_id, MAX(version_count) AS vc FROM record_versions WHERE registry_id = ? AND created_at < ?` +
			publicOnly + ` GROUP BY record_id) m ON m.record_id = v.record_id AND m.vc = v.version_count)`
		relArgs = []any{registryID, o.AsOf.UnixMilli()}
	}
	// The registry's maintained counts: the total of an unfiltered query of the latest
	// records, and whether any record is a draft now.
	// Deleted records are not counted (DeleteRecords) and have an index of their own.
	var all, drafts int64
	var deleted bool
	if err := s.rawRow(ctx, `SELECT record_count, draft_count,
			EXISTS (SELECT 1 FROM records d WHERE d.registry_id = g.registry_id AND d.state = ?)
		FROM registries g WHERE registry_id = ?`,
		[]any{directory.StateDeleted, registryID}, &all, &drafts, &deleted); err != nil {
		return nil, 0, translate(err, "count")
	}
	w := &where{}
	w.add("r.registry_id = ?", registryID)
	if !o.WithDrafts && drafts > 0 {
		// Only the records with a public version (drafts come before a record's public
		// versions, so a record whose latest version is a draft has none). A registry without
		// drafts needs no condition, and its pages stay on the name index alone.
		w.add("r.state <> ?", directory.StateDraft)
	}
	if deleted || !o.AsOf.IsZero() {
		w.add("r.state <> ?", directory.StateDeleted) // a deleted record is missing (directory.Gone)
	}
	unfiltered := len(w.conds)
	s.listFilters(w, o, "record_name")
	if o.State != "" {
		effectiveStateFilter(w, o.State, s.nowMS()) // as the records read now, as_on or not
	}
	order := orderBy(o.Sort, "record_name", "record_id")
	if !o.AsOf.IsZero() {
		recs, total, err := queryPage(ctx, s, "SELECT "+recordListCols+" FROM "+rel+" r", relArgs, w, order, o, scanRecords)
		if err != nil {
			return nil, 0, err
		}
		return recs, total, s.withRegistryStates(ctx, recs)
	}
	// The latest records: the total of an unfiltered query is the registry's maintained count,
	// and the page is found on an index alone (a deferred join) before its rows are read, so that
	// deep pages stay cheap.
	var total int64
	if len(w.conds) == unfiltered {
		total = all
		if !o.WithDrafts {
			total = all - drafts
		}
	} else if err := s.rawRow(ctx, "SELECT COUNT(*) FROM records r"+w.sql(), w.args, &total); err != nil {
		return nil, 0, translate(err, "count")
	}
	if total == 0 || o.offset() >= int(total) {
		return []directory.Record{}, total, nil
	}
	limit, off, reversed := pageWindow(o.offset(), o.Size, total)
	q := "SELECT " + recordListCols + " FROM records r JOIN (SELECT r.record_id FROM records r" + w.sql() +
		orderSQL(o.Sort, "record_name", "record_id", reversed) + " LIMIT ? OFFSET ?) k ON k.record_id = r.record_id" + order
	rows, err := s.rawRows(ctx, q, append(w.args, limit, off)...)
	if err != nil {
		return nil, 0, translate(err, "records")
	}
	out, err := scanRecords(rows)
	if err != nil {
		return nil, 0, err
	}
	if out == nil {
		out = []directory.Record{}
	}
	return out, total, s.withRegistryStates(ctx, out)
}

// RegistriesByTag lists the registries in state with the tag in namespaces that hold a
// verified domain, newest first.
func (s *Store) RegistriesByTag(ctx context.Context, tag, state string) ([]directory.Registry, error) {
	rows, err := s.rawRows(ctx, `SELECT `+registryListCols+` FROM registries r
		JOIN namespaces n ON n.namespace_id = r.namespace_id
		WHERE r.tag = ? AND r.state = ? AND r.state <> ? AND n.state <> ? AND n.domain IS NOT NULL
		ORDER BY r.updated_at DESC, r.registry_id LIMIT 10000`, tag, state, directory.StateDeleted, directory.StateDeleted)
	if err != nil {
		return nil, translate(err, "registries by tag")
	}
	return scanRegistries(rows)
}
