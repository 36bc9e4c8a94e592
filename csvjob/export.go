package csvjob

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/svc-directory/svc/store"
)

// ErrChanged: the registry changed during an export in a way its header cannot hold.
var ErrChanged = errors.New("the registry changed during the export; export it again")

// coveredBy reports whether path is a column or lies inside one.
func coveredBy(columns map[string]bool, path string) bool {
	for p := path; ; {
		if columns[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// Records is the store's walk over a registry's latest records (store.EachRecordDetails);
// drafts are walked only withDrafts (for the namespace's owner and delegates).
type Records interface {
	EachRecordDetails(ctx context.Context, registryID string, withDrafts bool, fn func(r store.ExportedRecord) error) error
}

// ExportHeader walks the registry once for the export's header (Columns.Add's error when a
// details key cannot be a column). Memory holds the set of paths, not the records.
func ExportHeader(ctx context.Context, src Records, registryID string, withDrafts bool) ([]string, error) {
	cols := NewColumns()
	if err := src.EachRecordDetails(ctx, registryID, withDrafts, func(r store.ExportedRecord) error { return cols.Add(r.Details) }); err != nil {
		return nil, err
	}
	return cols.Header(), nil
}

// Export writes the registry's records under header to w as CSV, in record name order, a page
// at a time: it walks the registry a second time and keeps no more than a page in memory. A
// record written since the header was made with a field no column holds stops the export with
// ErrChanged rather than leave the field out (the answer is then cut short). Drafts are
// written only withDrafts.
func Export(ctx context.Context, w io.Writer, src Records, registryID string, withDrafts bool, schema map[string]any, header []string) error {
	cw, err := newRowWriter(w, header)
	if err != nil {
		return err
	}
	covered := map[string]bool{}
	for _, p := range header {
		if p != NameColumn && p != StateColumn {
			covered[p] = true
		}
	}
	err = src.EachRecordDetails(ctx, registryID, withDrafts, func(r store.ExportedRecord) error {
		leaves := NewColumns()
		if err := leaves.Add(r.Details); err != nil {
			return err
		}
		for p := range leaves.set {
			if !coveredBy(covered, p) {
				return fmt.Errorf("%w: %s of %s has no column", ErrChanged, p, r.Name)
			}
		}
		row, err := Row(header, schema, r.Name, r.State, r.Details)
		if err != nil {
			return err
		}
		return cw.write(row)
	})
	if err != nil {
		return err
	}
	return cw.close()
}

// rowWriter writes CSV rows, flushed every 1,000, so that a long file is not held in memory.
type rowWriter struct {
	cw *csv.Writer
	n  int
}

// newRowWriter writes the header row, each cell neutralised (a details key may begin with '-').
func newRowWriter(w io.Writer, header []string) (*rowWriter, error) {
	head := make([]string, len(header))
	for i, h := range header {
		head[i] = neutralise(h)
	}
	rw := &rowWriter{cw: csv.NewWriter(w)}
	return rw, rw.cw.Write(head)
}

func (rw *rowWriter) write(row []string) error {
	if err := rw.cw.Write(row); err != nil {
		return err
	}
	if rw.n++; rw.n%1000 == 0 {
		rw.cw.Flush()
		return rw.cw.Error()
	}
	return nil
}

// close writes what is buffered.
func (rw *rowWriter) close() error {
	rw.cw.Flush()
	return rw.cw.Error()
}
