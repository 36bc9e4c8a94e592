package translog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/witnesstest"
)

const witnessCreator = "did:web:localhost%3A8080:tester"

type witnessedLog struct {
	t    *testing.T
	st   *store.Store
	key  translog.Key
	g    *translog.Integrator
	ns   string
	recs int
}

func newWitnessedLog(t *testing.T, d string) *witnessedLog {
	t.Helper()
	st := storetest.Open(t, d)
	skey, _, err := translog.GenerateKey("localhost:8080/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, err := st.EnsureUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := st.CreateNamespace(ctx, u, witnessCreator, directory.NamespaceInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRegistry(ctx, ns.NamespaceID, witnessCreator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
		t.Fatal(err)
	}
	return &witnessedLog{t: t, st: st, key: key, g: translog.NewIntegrator(st, key, nil, nil), ns: ns.NamespaceID}
}

// grow writes n records and integrates them; it returns the new log size.
func (l *witnessedLog) grow(n int) int64 {
	l.t.Helper()
	ctx := context.Background()
	in := make([]directory.RecordInput, n)
	for i := range in {
		in[i] = directory.RecordInput{RecordName: fmt.Sprintf("r%05d", l.recs+i), Details: map[string]any{"i": float64(i)}}
	}
	l.recs += n
	if _, err := l.st.AddRecords(ctx, l.ns, "people", witnessCreator, in); err != nil {
		l.t.Fatal(err)
	}
	for {
		k, err := l.g.IntegrateOnce(ctx)
		if err != nil {
			l.t.Fatal(err)
		}
		if k == 0 {
			break
		}
	}
	st, err := l.st.LogState(ctx)
	if err != nil {
		l.t.Fatal(err)
	}
	return st.Size
}

// cosigners opens the stored cosigned checkpoint with the log's key and the witnesses' keys,
// and returns its size and the names of the witnesses whose cosignatures verify.
func (l *witnessedLog) cosigners(ws ...*witnesstest.Witness) (int64, []string) {
	l.t.Helper()
	c, err := l.st.LogCosigned(context.Background())
	if err != nil {
		l.t.Fatal(err)
	}
	if c.Text == "" {
		return 0, nil
	}
	vs := []note.Verifier{l.key.Verifier}
	for _, w := range ws {
		v, err := fnote.NewVerifierForCosignatureV1(w.VerifierKey)
		if err != nil {
			l.t.Fatal(err)
		}
		vs = append(vs, v)
	}
	n, err := note.Open([]byte(c.Text), note.VerifierList(vs...))
	if err != nil {
		l.t.Fatalf("cosigned checkpoint: %v", err)
	}
	cp, err := leaf.ParseCheckpoint(n.Text)
	if err != nil || cp.Size != c.Size {
		l.t.Fatalf("cosigned checkpoint of size %d holds %v (%v)", c.Size, cp, err)
	}
	var names []string
	for _, s := range n.Sigs {
		if s.Name != l.key.Verifier.Name() {
			names = append(names, s.Name)
		}
	}
	if len(n.UnverifiedSigs) > 0 {
		l.t.Fatalf("cosigned checkpoint holds %d signatures that do not verify", len(n.UnverifiedSigs))
	}
	return c.Size, names
}

// The log submits each new checkpoint to its witnesses (C2SP tlog-witness add-checkpoint with a
// consistency proof from the size each holds) and stores the checkpoint with their
// cosignatures once the quorum cosigned; a restarted instance learns a witness's size from its
// 409 and goes on.
func TestWitnessesCosignCheckpoints(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			l := newWitnessedLog(t, d)
			w1 := witnesstest.New(t, "w1.example", l.key.VerifierKey)
			w2 := witnesstest.New(t, "w2.example", l.key.VerifierKey)
			cfg := []translog.WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}, {Key: w2.VerifierKey, URL: w2.URL}}
			m := translog.NewMetrics()
			wt, err := translog.NewWitnesser(l.st, l.key.VerifierKey, cfg, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			wt.WithMetrics(m)
			origin := l.key.Verifier.Name()
			for round, grow := range []int{5, 300, 1} {
				size := l.grow(grow)
				n, err := wt.WitnessOnce(ctx)
				if err != nil || n != 2 {
					t.Fatalf("round %d: %d cosignatures, %v", round, n, err)
				}
				got, names := l.cosigners(w1, w2)
				if got != size || strings.Join(names, " ") != "w1.example w2.example" {
					t.Fatalf("round %d: cosigned %d by %v, want %d by both", round, got, names, size)
				}
				if w1.Latest(origin) != size || w2.Latest(origin) != size {
					t.Fatalf("round %d: the witnesses hold %d and %d, want %d", round, w1.Latest(origin), w2.Latest(origin), size)
				}
			}
			// Nothing new: nothing sent.
			calls := w1.Calls()
			if n, err := wt.WitnessOnce(ctx); err != nil || n != 0 || w1.Calls() != calls {
				t.Fatalf("an unchanged log: %d, %v, %d calls", n, err, w1.Calls()-calls)
			}
			// Another instance knows nothing of the witnesses' sizes: each answers 409 with
			// its size, and the instance sends the proof from there.
			fresh, err := translog.NewWitnesser(l.st, l.key.VerifierKey, cfg, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			size := l.grow(3)
			if n, err := fresh.WitnessOnce(ctx); err != nil || n != 2 {
				t.Fatalf("a fresh instance: %d, %v", n, err)
			}
			if got, _ := l.cosigners(w1, w2); got != size {
				t.Fatalf("cosigned %d, want %d", got, size)
			}
			if c := counter(t, m, "svc_log_witness_requests_total", "w1.example", "cosigned"); c != 3 {
				t.Fatalf("w1 cosigned %v times, want 3", c)
			}
		})
	}
}

// A witness that is down, refuses or forges its cosignature delays the cosigned checkpoint but
// never a write: versions are still written and integrated, the cosigned checkpoint stays where
// it was until a quorum cosigns again, and a quorum of the honest ones is enough.
func TestWitnessFailuresDelayCosigningOnly(t *testing.T) {
	ctx := context.Background()
	l := newWitnessedLog(t, store.DialectSQLite)
	w1 := witnesstest.New(t, "w1.example", l.key.VerifierKey)
	w2 := witnesstest.New(t, "w2.example", l.key.VerifierKey)
	cfg := []translog.WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}, {Key: w2.VerifierKey, URL: w2.URL}}
	m := translog.NewMetrics()
	both, err := translog.NewWitnesser(l.st, l.key.VerifierKey, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	both.WithMetrics(m)
	first := l.grow(4)
	if n, err := both.WitnessOnce(ctx); err != nil || n != 2 {
		t.Fatalf("%d, %v", n, err)
	}
	for _, mode := range []witnesstest.Mode{witnesstest.Down, witnesstest.Refuse, witnesstest.Forge} {
		w2.SetMode(mode)
		size := l.grow(2) // writes and integration go on
		if n, err := both.WitnessOnce(ctx); err == nil || n != 1 {
			t.Fatalf("mode %d: %d cosignatures, %v; want 1 and an error", mode, n, err)
		}
		if got, _ := l.cosigners(w1, w2); got != first {
			t.Fatalf("mode %d: cosigned %d, want it still at %d (log at %d)", mode, got, first, size)
		}
	}
	for outcome, want := range map[string]float64{"unreachable": 1, "refused": 1, "bad_response": 1} {
		if c := counter(t, m, "svc_log_witness_requests_total", "w2.example", outcome); c != want {
			t.Fatalf("w2 %s: %v, want %v", outcome, c, want)
		}
	}
	// A quorum of one is met by the honest witness.
	one, err := translog.NewWitnesser(l.st, l.key.VerifierKey, cfg, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	size := l.grow(1)
	if n, err := one.WitnessOnce(ctx); err != nil || n != 1 {
		t.Fatalf("quorum 1: %d, %v", n, err)
	}
	if got, names := l.cosigners(w1, w2); got != size || strings.Join(names, " ") != "w1.example" {
		t.Fatalf("quorum 1: cosigned %d by %v", got, names)
	}
	// A witness that answers with the lines of two keys: the one configured is kept, the other
	// left out of the cosigned checkpoint (cosigners fails on a line it cannot verify).
	w1.SetMode(witnesstest.TwoKeys)
	size = l.grow(1)
	if n, err := one.WitnessOnce(ctx); err != nil || n != 1 {
		t.Fatalf("two keys: %d, %v", n, err)
	}
	if got, names := l.cosigners(w1, w2); got != size || strings.Join(names, " ") != "w1.example" {
		t.Fatalf("two keys: cosigned %d by %v", got, names)
	}
	w1.SetMode(witnesstest.Honest)
	// Back up: w2 catches up from the size it last cosigned.
	w2.SetMode(witnesstest.Honest)
	size = l.grow(1)
	if n, err := both.WitnessOnce(ctx); err != nil || n != 2 {
		t.Fatalf("recovered: %d, %v", n, err)
	}
	if got, names := l.cosigners(w1, w2); got != size || len(names) != 2 {
		t.Fatalf("recovered: cosigned %d by %v", got, names)
	}
}

// Witness lists and quorums are checked where they are configured.
func TestParseWitnesses(t *testing.T) {
	w := witnesstest.New(t, "w.example")
	ok, err := translog.ParseWitnesses(" " + w.VerifierKey + " https://w.example/witness , ")
	if err != nil || len(ok) != 1 || ok[0].URL != "https://w.example/witness" {
		t.Fatalf("%v %v", ok, err)
	}
	for _, bad := range []string{
		w.VerifierKey,                                                // no URL
		w.VerifierKey + " ftp://w.example",                           // not http(s)
		"nokey https://w.example",                                    // not a key
		w.VerifierKey + " https://a " + "more",                       // three fields
		w.VerifierKey + " https://a," + w.VerifierKey + " https://b", // twice
	} {
		if _, err := translog.ParseWitnesses(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	st := storetest.Open(t, store.DialectSQLite)
	_, vkey, _ := translog.GenerateKey("localhost:8080/svc/log")
	for _, q := range []int{0, 2} {
		if _, err := translog.NewWitnesser(st, vkey, ok, q, nil); err == nil {
			t.Errorf("quorum %d of 1 accepted", q)
		}
	}
}

// counter reads the value of the counter name with the label values witness and outcome.
func counter(t *testing.T, m *translog.Metrics, name, witness, outcome string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m.Collectors()...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, mt := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range mt.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["witness"] == witness && labels["outcome"] == outcome {
				return mt.GetCounter().GetValue()
			}
		}
	}
	return 0
}
