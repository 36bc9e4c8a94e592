package csvjob_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

// importRows is the size of the import benchmark's file (issue 19: 200,000 rows at 5,000/s).
const importRows = 200_000

// benchCSV is a file of n rows of the seeded records' details, written by the export's codec.
func benchCSV(b *testing.B, n int) []byte {
	b.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	cols := csvjob.NewColumns()
	details := make([]map[string]any, n)
	for i := range n {
		details[i] = storetest.Details(r, i)
		if err := cols.Add(details[i]); err != nil {
			b.Fatal(err)
		}
	}
	header := cols.Header()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(header)
	for i, d := range details {
		row, err := csvjob.Row(header, nil, storetest.PersonName(i), directory.StateLive, d)
		if err != nil {
			b.Fatal(err)
		}
		_ = w.Write(row)
	}
	w.Flush()
	return buf.Bytes()
}

// importInto imports content into a new registry of ns as one job and returns how long the
// job took and the registry.
func importInto(b *testing.B, s *store.Store, u store.User, nsID, registry string, content []byte) (time.Duration, directory.Registry) {
	b.Helper()
	ctx := context.Background()
	if _, err := s.CreateRegistry(ctx, nsID, storetest.BenchCreator, directory.RegistryInput{RegistryName: registry,
		Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}); err != nil {
		b.Fatal(err)
	}
	rows, header, err := csvjob.Inspect(content, map[string]any{"type": "object"})
	if err != nil {
		b.Fatalf("inspect: %v", err)
	}
	job, err := s.CreateImportJob(ctx, u.ID, nsID, registry, storetest.BenchCreator, header, rows, content)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if found, err := csvjob.NewWorker(s, nil, nil).RunOnce(ctx); !found || err != nil {
		b.Fatalf("import: %v, %v", found, err)
	}
	el := time.Since(start)
	got, _, err := s.Job(ctx, u.ID, job.ID)
	if err != nil || got.State != store.JobDone || got.ImportedRows != rows {
		b.Fatalf("job: %+v, %v", got, err)
	}
	reg, err := s.GetRegistry(ctx, nsID, registry, directory.VersionSel{})
	if err != nil {
		b.Fatal(err)
	}
	return el, reg
}

// BenchmarkRoundTrip200kPostgres imports a 200,000-row file as one job on Postgres (import
// rows/s: the figure of issue 19, at least 5,000), exports the registry, imports the export
// into an empty registry and checks that every record has the same details in both.
func BenchmarkRoundTrip200kPostgres(b *testing.B) {
	content := benchCSV(b, importRows)
	ctx := context.Background()
	for range b.N {
		s := storetest.Open(b, store.DialectPostgres)
		u, nsID := storetest.BenchNamespace(b, s)
		took, reg := importInto(b, s, u, nsID, "people", content)
		b.ReportMetric(float64(importRows)/took.Seconds(), "import_rows/s")

		start := time.Now()
		header, err := csvjob.ExportHeader(ctx, s, reg.RegistryID, true)
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		if err := csvjob.Export(ctx, &out, s, reg.RegistryID, true, reg.Schema, header); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(importRows)/time.Since(start).Seconds(), "export_records/s")

		took2, copied := importInto(b, s, u, nsID, "copy", out.Bytes())
		b.ReportMetric(float64(importRows)/took2.Seconds(), "reimport_rows/s")
		want := map[string]string{}
		if err := s.EachRecordDetails(ctx, reg.RegistryID, true, func(r store.ExportedRecord) error {
			c, err := proof.Canonicalize(r.Details)
			want[r.Name] = string(c)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		same := 0
		if err := s.EachRecordDetails(ctx, copied.RegistryID, true, func(r store.ExportedRecord) error {
			c, err := proof.Canonicalize(r.Details)
			if string(c) == want[r.Name] {
				same++
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
		if same != importRows || len(want) != importRows {
			b.Fatalf("%d of %d records have the same details after the round trip", same, len(want))
		}
	}
}

// countingWriter counts what an export writes.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// rssMiB reads the process's resident set from /proc (0 where there is none).
func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkExport1MPostgres exports the seeded 1,000,000-record registry (both walks) and
// samples the process's resident memory meanwhile: max_rss_MiB is the figure of issue 19
// (under 100 MiB), records/s its speed.
func BenchmarkExport1MPostgres(b *testing.B) {
	s, nsID := storetest.SeededRegistry(b, 1_000_000)
	ctx := context.Background()
	reg, err := s.GetRegistry(ctx, nsID, "people", directory.VersionSel{})
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		debug.FreeOSMemory()
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				if r := uint64(rssMiB() * 1024); r > peak.Load() {
					peak.Store(r)
				}
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		start := time.Now()
		header, err := csvjob.ExportHeader(ctx, s, reg.RegistryID, true)
		if err != nil {
			b.Fatal(err)
		}
		var w countingWriter
		if err := csvjob.Export(ctx, io.Writer(&w), s, reg.RegistryID, true, reg.Schema, header); err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		close(done)
		b.ReportMetric(float64(reg.RecordCount)/el.Seconds(), "records/s")
		b.ReportMetric(float64(peak.Load())/1024, "max_rss_MiB")
		b.ReportMetric(float64(w.n.Load())/(1<<20), "csv_MiB")
	}
}
