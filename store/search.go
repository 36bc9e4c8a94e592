// Search: the details search over a namespace's latest records (both dialects).

package store

import (
	"context"
	"database/sql"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/svc-directory/svc/directory"
)

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
	Member                   bool   // the caller is the namespace's owner or a delegate
	State                    string // the state the records read as (EffectiveState); "" for any
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
	Records    []directory.Record
	Total      int64 // exact when TotalExact, else a lower bound (SearchCountLimit)
	TotalExact bool
}

// Search finds the latest versions of the namespace's records that match, newest update first.
// Non-members see every record but drafts, of registries that allow queries.
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
	q := &searchQuery{namespaceID: namespaceID, o: o, nowMS: s.nowMS(), pageFrom: (o.Page - 1) * o.Size, pageEnd: o.Page * o.Size}
	var res SearchResult
	var err error
	switch s.d.textIndex() {
	case textIndexTrigram:
		res, err = s.searchPostgres(ctx, q)
	default:
		res, err = s.searchSQLite(ctx, q)
	}
	if err != nil {
		return SearchResult{}, err
	}
	return res, s.withRegistryStates(ctx, res.Records)
}

// searchQuery is a search on its way through the strategy of the store's dialect.
type searchQuery struct {
	namespaceID       string
	o                 SearchOptions
	nowMS             int64 // the instant the record states are read at
	pageFrom, pageEnd int
}

// searchFilter is the search's conditions on r (without the namespace). Each details condition has
// an index-friendly part (the value alone: the paths are in every row and would only slow a
// trigram scan) and an exact part (path and value in one entry), written by the dialect
// (fieldMatch); in a walk (walked, Postgres) no index is at stake and both are plain row tests.
func (s *Store) searchFilter(q *searchQuery, walked bool) *where {
	o := q.o
	w := &where{}
	if !o.Member {
		w.add("r.registry_id IN (SELECT registry_id FROM registries WHERE namespace_id = ? AND query_allowed = ?)", q.namespaceID, true)
		w.add("r.state <> ?", directory.StateDraft)
	}
	// Deleted records, and the records of deleted registries, are missing (directory.Gone).
	w.add("r.state <> ?", directory.StateDeleted)
	w.add("r.registry_id NOT IN (SELECT registry_id FROM registries WHERE state = ?)", directory.StateDeleted)
	if o.State != "" {
		effectiveStateFilter(w, o.State, q.nowMS)
	}
	if o.RegistryName != "" {
		cond, arg := s.d.containsName("r.registry_name", o.RegistryName)
		w.add(cond, arg)
	}
	if o.RecordName != "" {
		cond, arg := s.d.containsName("r.record_name", o.RecordName)
		w.add(cond, arg)
	}
	if !o.From.IsZero() {
		w.add("r.updated_at >= ?", o.From.UnixMilli())
	}
	if !o.To.IsZero() {
		w.add("r.created_at <= ?", o.To.UnixMilli())
	}
	for _, f := range o.Fields {
		s.fieldMatch(w, directory.Fold(f.Path), directory.FoldNeedle(f.Value), walked)
	}
	return w
}

// inNamespace is w limited to the search's namespace.
func (q *searchQuery) inNamespace(w *where) *where {
	return &where{conds: append([]string{"r.namespace_id = ?"}, w.conds...), args: append([]any{q.namespaceID}, w.args...)}
}

// searchPostgres: the walk first, then the trigram indexes (Search).
func (s *Store) searchPostgres(ctx context.Context, q *searchQuery) (SearchResult, error) {
	res := SearchResult{Records: []directory.Record{}}
	walk := &searchWalk{s: s, namespaceID: q.namespaceID, filter: s.searchFilter(q, true)}
	if !q.o.From.IsZero() {
		walk.from = q.o.From.UnixMilli()
	}
	conclusive, err := walk.probe(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	if conclusive {
		if len(walk.found) > SearchCountLimit {
			if err := walk.extend(ctx, q.pageEnd); err != nil {
				return SearchResult{}, err
			}
			res.Total = SearchCountLimit
		} else {
			res.Total, res.TotalExact = int64(len(walk.found)), true
		}
		return s.searchPage(ctx, res, walk.found, q.pageFrom, q.pageEnd)
	}
	keys, err := s.searchKeys(ctx, "SELECT r.record_id, r.updated_at FROM records r", q.inNamespace(s.searchFilter(q, false)))
	if err != nil {
		return SearchResult{}, err
	}
	if len(keys) <= SearchCountLimit {
		return s.searchExact(ctx, res, keys, q)
	}
	res.Total = SearchCountLimit
	// The walk found fewer matches than the index did, but it has them in order: it goes on
	// as far as this page needs.
	if err := walk.extend(ctx, q.pageEnd); err != nil {
		return SearchResult{}, err
	}
	return s.searchPage(ctx, res, walk.found, q.pageFrom, q.pageEnd)
}

// searchSQLite: the full-text index's candidates, or the namespace's records (Search).
func (s *Store) searchSQLite(ctx context.Context, q *searchQuery) (SearchResult, error) {
	res := SearchResult{Records: []directory.Record{}}
	w := q.inNamespace(s.searchFilter(q, false))
	keysFrom := "SELECT r.record_id, r.updated_at FROM records r"
	if match := ftsQuery(q.o); match != "" {
		// The trigram index finds the candidates, the conditions check each of them.
		keysFrom = "SELECT r.record_id, r.updated_at FROM records_fts CROSS JOIN records r ON r.rowid = records_fts.rowid"
		w = &where{conds: append([]string{"records_fts MATCH ?"}, w.conds...), args: append([]any{match}, w.args...)}
	}
	keys, err := s.searchKeys(ctx, keysFrom, w)
	if err != nil {
		return SearchResult{}, err
	}
	if len(keys) <= SearchCountLimit {
		return s.searchExact(ctx, res, keys, q)
	}
	res.Total = SearchCountLimit
	// Many rows match: reading newest first and filtering finds a page sooner than collecting
	// every match.
	w = q.inNamespace(s.searchFilter(q, false))
	rows, err := s.rawRows(ctx, "SELECT "+recordListCols+" FROM records r"+w.sql()+
		" ORDER BY r.updated_at DESC, r.record_id LIMIT ? OFFSET ?", append(w.args, q.o.Size, q.pageFrom)...)
	return withRecords(res, rows, err)
}

// searchKeys collects, in one pass, the keys of up to SearchCountLimit+1 matches: when they
// are all there, the total is exact and the page is cut from them; otherwise the search is broad.
func (s *Store) searchKeys(ctx context.Context, keysFrom string, w *where) ([]searchKey, error) {
	keyRows, err := s.rawRows(ctx, keysFrom+w.sql()+" LIMIT ?", append(w.args, SearchCountLimit+1)...)
	if err != nil {
		return nil, translate(err, "search")
	}
	var keys []searchKey
	for keyRows.Next() {
		var k searchKey
		if err := keyRows.Scan(&k.id, &k.updated); err != nil {
			keyRows.Close()
			return nil, translate(err, "search")
		}
		keys = append(keys, k)
	}
	keyRows.Close()
	if err := keyRows.Err(); err != nil {
		return nil, translate(err, "search")
	}
	return keys, nil
}

// searchExact answers with all the matches' keys (at most SearchCountLimit), ordered newest
// update first, and an exact total.
func (s *Store) searchExact(ctx context.Context, res SearchResult, keys []searchKey, q *searchQuery) (SearchResult, error) {
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].updated != keys[j].updated {
			return keys[i].updated > keys[j].updated
		}
		return keys[i].id < keys[j].id
	})
	res.Total, res.TotalExact = int64(len(keys)), true
	return s.searchPage(ctx, res, keys, q.pageFrom, q.pageEnd)
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
		add("search_text", directory.FoldNeedle(f.Value))
	}
	if o.RecordName != "" {
		add("record_name", directory.Fold(o.RecordName))
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
	rows, err := s.rawRows(ctx, "SELECT "+recordListCols+" FROM records r WHERE r.record_id IN ("+
		strings.Join(marks, ",")+") ORDER BY r.updated_at DESC, r.record_id", ids...)
	return withRecords(res, rows, err)
}
