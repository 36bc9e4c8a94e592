package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ListOptions filter and page the registry and record queries.
type ListOptions struct {
	From, To   time.Time // inclusive UTC days of the last update (zero: unbounded)
	State      string    // live, inactive or draft ("" for any)
	Name       string    // partial, case-insensitive name match
	Sort       string    // date (newest first), name, id (ascending), status (state, then name)
	Page, Size int
	AsOf       time.Time // the end of this UTC day (zero: now)
}

func (o ListOptions) offset() int { return (o.Page - 1) * o.Size }

// dayStart is the first instant of t's UTC day, in ms.
func dayStart(t time.Time) int64 {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).UnixMilli()
}

// containsName is the condition "col contains needle, case-insensitively" for names (ASCII by
// their pattern, so that lower(col) is their case-folded form on both dialects); the trigram
// index on lower(col) serves it on Postgres.
func (s *Store) containsName(col, needle string) (string, any) {
	n := fold(needle)
	if s.dialect == DialectPostgres {
		return "lower(" + col + ") LIKE ? ESCAPE '\\'", "%" + escapeLike(n) + "%"
	}
	return "instr(lower(" + col + "), ?) > 0", n
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func escapeLike(s string) string { return likeEscaper.Replace(s) }

// where collects conditions and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
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
	r.record_count`

func scanRegistries(rows *sql.Rows) ([]Registry, error) {
	defer rows.Close()
	var out []Registry
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
func (s *Store) ListRegistries(ctx context.Context, namespaceID string, o ListOptions) ([]Registry, int64, error) {
	rel := "registries"
	var relArgs []any
	if !o.AsOf.IsZero() {
		rel = `(SELECT v.registry_id, v.namespace_id, v.registry_name, v.tag, v.schema, v.created_by, v.genesis, v.version,
			v.version_count, v.description, v.meta, v.ttl, v.state, v.query_allowed, v.digest, v.proof_type,
			v.created_at AS updated_at, g.created_at, g.record_count
			FROM registry_versions v JOIN registries g ON g.registry_id = v.registry_id
			JOIN (SELECT registry_id, MAX(version_count) AS vc FROM registry_versions WHERE namespace_id = ? AND created_at < ?
				GROUP BY registry_id) m ON m.registry_id = v.registry_id AND m.vc = v.version_count)`
		relArgs = []any{namespaceID, o.AsOf.UnixMilli()}
	}
	w := &where{}
	w.add("r.namespace_id = ?", namespaceID)
	s.listFilters(w, o, "registry_name")
	return queryPage(ctx, s, "SELECT "+registryListCols+" FROM "+rel+" r", relArgs, w, orderBy(o.Sort, "registry_name", "registry_id"), o, scanRegistries)
}

func (s *Store) listFilters(w *where, o ListOptions, nameCol string) {
	if !o.From.IsZero() {
		w.add("r.updated_at >= ?", dayStart(o.From))
	}
	if !o.To.IsZero() {
		w.add("r.updated_at < ?", dayStart(o.To)+24*3600*1000)
	}
	if o.State != "" {
		w.add("r.state = ?", o.State)
	}
	if o.Name != "" {
		cond, arg := s.containsName("r."+nameCol, o.Name)
		w.add(cond, arg)
	}
}

// queryPage runs the count and the page of a list query.
func queryPage[T any](ctx context.Context, s *Store, selectFrom string, relArgs []any, w *where, order string, o ListOptions,
	scan func(*sql.Rows) ([]T, error)) ([]T, int64, error) {
	args := append(append([]any{}, relArgs...), w.args...)
	from := selectFrom[strings.Index(selectFrom, " FROM "):]
	var total int64
	if err := s.sqlDB.QueryRowContext(ctx, s.rebind("SELECT COUNT(*)"+from+w.sql()), args...).Scan(&total); err != nil {
		return nil, 0, translate(err, "count")
	}
	if total == 0 || o.offset() >= int(total) {
		return []T{}, total, nil
	}
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind(selectFrom+w.sql()+order+" LIMIT ? OFFSET ?"), append(args, o.Size, o.offset())...)
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

func scanRecords(rows *sql.Rows) ([]Record, error) {
	defer rows.Close()
	var out []Record
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
func (s *Store) ListRecords(ctx context.Context, registryID string, o ListOptions) ([]Record, int64, error) {
	rel := "records"
	var relArgs []any
	if !o.AsOf.IsZero() {
		rel = `(SELECT v.record_id, v.registry_id, v.namespace_id, v.registry_name, v.record_name, v.created_by, v.genesis,
			v.version, v.version_count, v.description, v.details, v.meta, v.ttl, v.state, v.valid_till, v.digest, v.proof_type,
			v.created_at AS updated_at, h.created_at
			FROM record_versions v JOIN records h ON h.record_id = v.record_id
			JOIN (SELECT record_id, MAX(version_count) AS vc FROM record_versions WHERE registry_id = ? AND created_at < ?
				GROUP BY record_id) m ON m.record_id = v.record_id AND m.vc = v.version_count)`
		relArgs = []any{registryID, o.AsOf.UnixMilli()}
	}
	w := &where{}
	w.add("r.registry_id = ?", registryID)
	s.listFilters(w, o, "record_name")
	order := orderBy(o.Sort, "record_name", "record_id")
	if !o.AsOf.IsZero() {
		return queryPage(ctx, s, "SELECT "+recordListCols+" FROM "+rel+" r", relArgs, w, order, o, scanRecords)
	}
	// The latest records: the total of an unfiltered query is the registry's maintained count,
	// and the page is found on an index alone (a deferred join) before its rows are read, so that
	// deep pages stay cheap.
	var total int64
	if len(w.conds) == 1 {
		if err := s.sqlDB.QueryRowContext(ctx, s.rebind(`SELECT record_count FROM registries WHERE registry_id = ?`), registryID).Scan(&total); err != nil {
			return nil, 0, translate(err, "count")
		}
	} else if err := s.sqlDB.QueryRowContext(ctx, s.rebind("SELECT COUNT(*) FROM records r"+w.sql()), w.args...).Scan(&total); err != nil {
		return nil, 0, translate(err, "count")
	}
	if total == 0 || o.offset() >= int(total) {
		return []Record{}, total, nil
	}
	limit, off, reversed := pageWindow(o.offset(), o.Size, total)
	q := "SELECT " + recordListCols + " FROM records r JOIN (SELECT r.record_id FROM records r" + w.sql() +
		orderSQL(o.Sort, "record_name", "record_id", reversed) + " LIMIT ? OFFSET ?) k ON k.record_id = r.record_id" + order
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind(q), append(w.args, limit, off)...)
	if err != nil {
		return nil, 0, translate(err, "records")
	}
	out, err := scanRecords(rows)
	if out == nil {
		out = []Record{}
	}
	return out, total, err
}

// RegistriesByTag lists the live registries with the tag in namespaces that hold a verified
// domain, newest first.
func (s *Store) RegistriesByTag(ctx context.Context, tag string) ([]Registry, error) {
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind(`SELECT `+registryListCols+` FROM registries r
		JOIN namespaces n ON n.namespace_id = r.namespace_id
		WHERE r.tag = ? AND r.state = ? AND n.domain IS NOT NULL ORDER BY r.updated_at DESC, r.registry_id LIMIT 10000`), tag, StateLive)
	if err != nil {
		return nil, translate(err, "registries by tag")
	}
	return scanRegistries(rows)
}

// FieldFilter is one details condition of a search: the scalar at Path (or an element of the
// array there) contains Value, case-insensitively.
type FieldFilter struct {
	Path  string // dotted, e.g. address.city
	Value string
}

// SearchOptions are the conditions of a search; all must hold.
type SearchOptions struct {
	RegistryName, RecordName string
	From, To                 time.Time // updated at or after From; created at or before To
	Fields                   []FieldFilter
	Member                   bool // the caller is the namespace's owner or a delegate
	Page, Size               int
}

// indexWord picks the part of a search value the trigram index looks up: a word (letters and
// digits) of the value, preferring one with digits, then the longest; words that are common in
// every record (like a mail domain) make trigram scans slow, and numbers rarely are. The whole
// value is still checked exactly. "" when no word has three characters.
func indexWord(needle string) string {
	best, bestDigits := "", false
	for _, w := range strings.FieldsFunc(needle, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) < 3 {
			continue
		}
		digits := strings.IndexFunc(w, unicode.IsDigit) >= 0
		switch {
		case digits && !bestDigits, digits == bestDigits && len(w) > len(best):
			best, bestDigits = w, digits
		}
	}
	return best
}

// pgRegexQuote escapes text for a Postgres ARE.
var pgRegexQuote = regexp.MustCompile(`[\\.^$|?*+()\[\]{}]`)

// SearchCountLimit bounds the exact count of a search: beyond it the total is reported as a
// lower bound (TotalExact false), as large search services do, so that broad searches stay fast.
// Counting is what a broad search costs: every match counted is a row read and checked, at
// random places in the table when the trigram index finds it. At a million records a search
// matching 1% took 28-30 ms p50 to count to 1,000 and takes 15 ms to count to 100, the
// largest page; a 10% search went from 15 ms to 2.3 ms.
const SearchCountLimit = 100

// SearchResult is a page of search results.
type SearchResult struct {
	Records    []Record
	Total      int64 // exact when TotalExact, else a lower bound (SearchCountLimit)
	TotalExact bool
}

// Search finds the latest versions of the namespace's records that match, newest update first.
// Non-members see only live records of registries that allow queries.
//
// Postgres: a search first walks the namespace's records newest first (an index order) in
// chunks, while the matches it finds promise at least SearchCountLimit+1 of them within a walk
// of searchWalkBudget rows: a broad search ends there with exact pages. Otherwise the trigram
// indexes collect the matches (up to SearchCountLimit+1) for an exact total, and a broad
// search's page comes from the walk, continued as far as the page needs.
//
// SQLite: the matches (up to SearchCountLimit+1) are collected from the candidates the trigram
// full-text index (records_fts) finds when a condition has three characters or more, else
// from the namespace's records; a broad search's page is read newest first.
func (s *Store) Search(ctx context.Context, namespaceID string, o SearchOptions) (SearchResult, error) {
	// Each details condition has an index-friendly part (the value alone: the paths are in every
	// row and would only slow a trigram scan) and an exact part (path and value in one entry).
	// In a walk (Postgres) no index is at stake and both are plain row tests.
	build := func(walked bool) *where {
		w := &where{}
		if !o.Member {
			w.add("r.registry_id IN (SELECT registry_id FROM registries WHERE namespace_id = ? AND query_allowed = ?)", namespaceID, true)
			w.add("r.state = ?", StateLive)
		}
		if o.RegistryName != "" {
			cond, arg := s.containsName("r.registry_name", o.RegistryName)
			w.add(cond, arg)
		}
		if o.RecordName != "" {
			cond, arg := s.containsName("r.record_name", o.RecordName)
			w.add(cond, arg)
		}
		if !o.From.IsZero() {
			w.add("r.updated_at >= ?", o.From.UnixMilli())
		}
		if !o.To.IsZero() {
			w.add("r.created_at <= ?", o.To.UnixMilli())
		}
		for _, f := range o.Fields {
			path, needle := fold(f.Path), foldNeedle(f.Value)
			if s.dialect != DialectPostgres {
				// instr (C) discards most rows before the exact check (a Go function) runs.
				w.add("instr(r.search_text, ?) > 0", needle)
				w.add("svc_field_match(r.search_text, ?, ?) = 1", path, needle)
				continue
			}
			// The exact check never uses the trigram index: written on an expression that is not
			// the indexed one, it would only repeat the LIKE's work.
			exactCol := "(r.search_text || '')"
			switch word := indexWord(needle); {
			case walked:
				exactCol = "r.search_text"
				if word != "" {
					w.add("strpos(r.search_text, ?) > 0", word) // cheaper per row than LIKE
				}
			case word != "":
				w.add("r.search_text LIKE ? ESCAPE '\\'", "%"+escapeLike(word)+"%")
			}
			re := entrySep + pgRegexQuote.ReplaceAllString(path, `\$0`) + valueSep + "[^" + entrySep + "]*" +
				pgRegexQuote.ReplaceAllString(needle, `\$0`)
			w.add(exactCol+" ~ ?", re)
		}
		return w
	}
	inNamespace := func(w *where) *where {
		return &where{conds: append([]string{"r.namespace_id = ?"}, w.conds...), args: append([]any{namespaceID}, w.args...)}
	}
	pageFrom, pageEnd := (o.Page-1)*o.Size, o.Page*o.Size
	res := SearchResult{Records: []Record{}}
	var walk *searchWalk
	if s.dialect == DialectPostgres {
		walk = &searchWalk{s: s, namespaceID: namespaceID, filter: build(true)}
		if !o.From.IsZero() {
			walk.from = o.From.UnixMilli()
		}
		conclusive, err := walk.probe(ctx)
		if err != nil {
			return SearchResult{}, err
		}
		if conclusive {
			if len(walk.found) > SearchCountLimit {
				if err := walk.extend(ctx, pageEnd); err != nil {
					return SearchResult{}, err
				}
				res.Total = SearchCountLimit
			} else {
				res.Total, res.TotalExact = int64(len(walk.found)), true
			}
			return s.searchPage(ctx, res, walk.found, pageFrom, pageEnd)
		}
	}
	// One pass collects the keys of up to SearchCountLimit+1 matches: when they are all there,
	// the total is exact and the page is cut from them; otherwise the search is broad.
	w := inNamespace(build(false))
	match := ""
	keysFrom := "SELECT r.record_id, r.updated_at FROM records r"
	if s.dialect == DialectSQLite {
		match = ftsQuery(o)
	}
	if match != "" {
		// SQLite: the trigram index finds the candidates, the conditions check each of them.
		keysFrom = "SELECT r.record_id, r.updated_at FROM records_fts CROSS JOIN records r ON r.rowid = records_fts.rowid"
		w = &where{conds: append([]string{"records_fts MATCH ?"}, w.conds...), args: append([]any{match}, w.args...)}
	}
	keyRows, err := s.sqlDB.QueryContext(ctx, s.rebind(keysFrom+w.sql()+" LIMIT ?"), append(w.args, SearchCountLimit+1)...)
	if err != nil {
		return SearchResult{}, translate(err, "search")
	}
	var keys []searchKey
	for keyRows.Next() {
		var k searchKey
		if err := keyRows.Scan(&k.id, &k.updated); err != nil {
			keyRows.Close()
			return SearchResult{}, translate(err, "search")
		}
		keys = append(keys, k)
	}
	keyRows.Close()
	if err := keyRows.Err(); err != nil {
		return SearchResult{}, translate(err, "search")
	}
	if len(keys) <= SearchCountLimit {
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].updated != keys[j].updated {
				return keys[i].updated > keys[j].updated
			}
			return keys[i].id < keys[j].id
		})
		res.Total, res.TotalExact = int64(len(keys)), true
		return s.searchPage(ctx, res, keys, pageFrom, pageEnd)
	}
	res.Total = SearchCountLimit
	if walk != nil {
		// The walk found fewer matches than the index did, but it has them in order: it goes on
		// as far as this page needs.
		if err := walk.extend(ctx, pageEnd); err != nil {
			return SearchResult{}, err
		}
		return s.searchPage(ctx, res, walk.found, pageFrom, pageEnd)
	}
	// SQLite, many rows match: reading newest first and filtering finds a page sooner than
	// collecting every match.
	w = inNamespace(build(false))
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind("SELECT "+recordListCols+" FROM records r"+w.sql()+
		" ORDER BY r.updated_at DESC, r.record_id LIMIT ? OFFSET ?"), append(w.args, o.Size, pageFrom)...)
	return withRecords(res, rows, err)
}

// ftsQuery is the full-text query (SQLite, records_fts) that finds a superset of a search's
// matches: for each details condition and for the record name, the phrase of its index word
// (indexWord), or of the whole value when no word has three characters but the value does; a
// trigram phrase matches the text that contains it. "" when no condition has three characters
// (the search then reads the namespace's records).
func ftsQuery(o SearchOptions) string {
	var parts []string
	add := func(col, needle string) {
		word := indexWord(needle)
		if word == "" && utf8.RuneCountInString(needle) >= 3 && !strings.ContainsRune(needle, 0) {
			word = needle
		}
		if word != "" {
			parts = append(parts, col+` : "`+strings.ReplaceAll(word, `"`, `""`)+`"`)
		}
	}
	for _, f := range o.Fields {
		add("search_text", foldNeedle(f.Value))
	}
	if o.RecordName != "" {
		add("record_name", fold(o.RecordName))
	}
	return strings.Join(parts, " AND ")
}

// withRecords puts the records of a page query into res.
func withRecords(res SearchResult, rows *sql.Rows, err error) (SearchResult, error) {
	if err != nil {
		return SearchResult{}, translate(err, "search")
	}
	recs, err := scanRecords(rows)
	if recs != nil {
		res.Records = recs
	}
	return res, err
}

type searchKey struct {
	id      string
	updated int64
}

// searchPage reads the records of keys[from:end] (keys in result order) into res.
func (s *Store) searchPage(ctx context.Context, res SearchResult, keys []searchKey, from, end int) (SearchResult, error) {
	from = min(from, len(keys))
	page := keys[from:min(end, len(keys))]
	if len(page) == 0 {
		return res, nil
	}
	ids := make([]any, len(page))
	marks := make([]string, len(page))
	for i, k := range page {
		ids[i], marks[i] = k.id, "?"
	}
	rows, err := s.sqlDB.QueryContext(ctx, s.rebind("SELECT "+recordListCols+" FROM records r WHERE r.record_id IN ("+
		strings.Join(marks, ",")+") ORDER BY r.updated_at DESC, r.record_id"), ids...)
	return withRecords(res, rows, err)
}

// The walk's chunk sizes: the first chunk is small (a selective search gives up after it), and
// a walk that promises a broad result goes on to at most searchWalkBudget rows. Variables only
// so that tests can make them small enough to reach every path with little data.
var (
	searchWalkFirst  = 1000
	searchWalkBudget = 24000
)

// searchWalk reads a namespace's records newest first in chunks, keeping those that match.
type searchWalk struct {
	s           *Store
	namespaceID string
	filter      *where // conditions on r (without the namespace)
	from        int64  // updated_at lower bound in ms (0: none): the walk ends there

	walked int
	ended  bool
	cursor *searchKey // the last row walked
	found  []searchKey
}

// probe walks while the matches promise a broad result within the budget. It reports whether
// the walk alone answers the search: it reached the end of the records, or found more than
// SearchCountLimit matches.
func (wk *searchWalk) probe(ctx context.Context) (bool, error) {
	need := SearchCountLimit + 1
	if err := wk.step(ctx, searchWalkFirst, need); err != nil {
		return false, err
	}
	for !wk.ended && len(wk.found) < need {
		left := searchWalkBudget - wk.walked
		density := float64(len(wk.found)) / float64(wk.walked)
		if left <= 0 || float64(len(wk.found))+density*float64(left) < float64(need) {
			return false, nil
		}
		if err := wk.step(ctx, left, need-len(wk.found)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// extend walks on until n matches are found or the records end.
func (wk *searchWalk) extend(ctx context.Context, n int) error {
	for len(wk.found) < n && !wk.ended {
		if err := wk.step(ctx, 200_000, n-len(wk.found)); err != nil {
			return err
		}
	}
	return nil
}

// step walks on through at most n rows, stopping at the want-th match. The rows are read in
// index order (namespace_id, updated_at DESC, record_id) after the cursor; only matches and
// the chunk's last row come back, in walk order.
func (wk *searchWalk) step(ctx context.Context, n, want int) error {
	inner := &where{}
	inner.add("namespace_id = ?", wk.namespaceID)
	if wk.from > 0 {
		inner.add("updated_at >= ?", wk.from)
	}
	if c := wk.cursor; c != nil {
		// Rows after the cursor in (updated_at DESC, record_id) order; the first condition bounds
		// the index range, the second skips the rows of the cursor's own instant already walked.
		inner.add("updated_at <= ?", c.updated)
		inner.add("NOT (updated_at = ? AND record_id <= ?)", c.updated, c.id)
	}
	match := "TRUE"
	if len(wk.filter.conds) > 0 {
		match = strings.Join(wk.filter.conds, " AND ")
	}
	// No ORDER BY outside: the window's rows stream in walk order, and the outer LIMIT stops the
	// walk at the want-th match (an ORDER BY would make Postgres walk the whole chunk first).
	// The order is checked below.
	q := `SELECT record_id, updated_at, m, rn FROM (
		SELECT r.record_id, r.updated_at, (` + match + `) AS m, row_number() OVER (ORDER BY r.updated_at DESC, r.record_id) AS rn
		FROM (SELECT record_id, registry_id, registry_name, record_name, state, created_at, updated_at, search_text
			FROM records` + inner.sql() + ` ORDER BY updated_at DESC, record_id LIMIT ?) r
		) x WHERE m OR rn = ? LIMIT ?`
	args := append(append(append([]any{}, wk.filter.args...), inner.args...), n, n, want)
	rows, err := wk.s.sqlDB.QueryContext(ctx, wk.s.rebind(q), args...)
	if err != nil {
		return translate(err, "search")
	}
	defer rows.Close()
	var last searchKey
	lastRN, got := 0, 0
	for rows.Next() {
		var k searchKey
		var m bool
		var rn int
		if err := rows.Scan(&k.id, &k.updated, &m, &rn); err != nil {
			return translate(err, "search")
		}
		if rn <= lastRN {
			return fmt.Errorf("search: walk rows out of order (%d after %d)", rn, lastRN)
		}
		if m {
			wk.found = append(wk.found, k)
		}
		last, lastRN = k, rn
		got++
	}
	if err := rows.Err(); err != nil {
		return translate(err, "search")
	}
	switch {
	case lastRN == n, got == want:
		// The chunk's end, or the want-th match: the walk goes on after it.
		wk.cursor = &last
		wk.walked += lastRN
	default:
		wk.ended = true
	}
	return nil
}
