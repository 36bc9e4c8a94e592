package translog

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/indexstore"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// The process TestKill9DuringIntegration kills is this test binary started again with these
// variables set: TestMain runs killChild instead of the tests.
const (
	killChildDB  = "SVC_KILL_CHILD_DB"  // the database URL
	killChildKey = "SVC_KILL_CHILD_KEY" // the log's signer key
	killChildRun = "SVC_KILL_CHILD_RUN" // which start this is (record names)
	killChildNS  = "SVC_KILL_CHILD_NS"  // the namespace the records go to
	killChildIdx = "SVC_KILL_CHILD_IDX" // the directory of the integrator's state index
)

func TestMain(m *testing.M) {
	if os.Getenv(killChildDB) != "" {
		os.Exit(killChild())
	}
	os.Exit(m.Run())
}

// killChild writes records and integrates them as fast as it can, with a writer and an
// integrator running at once as in `svc serve`, until it is killed. It prints "ready" after its
// first integration, then "+" as each integration starts and "-" when it has ended.
func killChild() int {
	ctx := context.Background()
	s, err := store.Open(ctx, os.Getenv(killChildDB), nil, store.Options{MaxOpenConns: 4})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	key, err := ParseKey(os.Getenv(killChildKey))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	run, ns := os.Getenv(killChildRun), os.Getenv(killChildNS)
	go func() {
		for i := 0; ; i++ {
			in := make([]directory.RecordInput, 25)
			for j := range in {
				in[j] = directory.RecordInput{RecordName: fmt.Sprintf("k%s-%06d", run, i*len(in)+j), Details: map[string]any{"n": float64(j)}}
			}
			if _, err := s.AddRecords(ctx, ns, "people", creator, in); err != nil {
				fmt.Fprintln(os.Stderr, "write:", err)
				os.Exit(3)
			}
		}
	}()
	idx, err := indexstore.Open(os.Getenv(killChildIdx), indexstore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	m, _ := idx.Meta()
	fmt.Println("resumed", m.Size) // the size its index was at, which it resumes from if the log agrees
	g := NewIntegrator(s, key, nil, nil).WithStateIndexIn(idx)
	for i := 0; ; i++ {
		if i > 0 {
			fmt.Println("+") // an integration starts
		}
		if _, err := g.integrate(ctx, 200, nil); err != nil {
			fmt.Fprintln(os.Stderr, "integrate:", err)
			return 4
		}
		if i == 0 {
			fmt.Println("ready")
		} else {
			fmt.Println("-") // it ended
		}
	}
}

// kill -9 of a process that is writing versions and integrating them (with the state index on
// disk, which each start resumes from), again and again at random moments: afterwards every public version written is in the log
// exactly once, in per-entry order, every committed state root is the one the index rebuilt
// from the leaves gives, each checkpoint published between the kills is a prefix of the final tree
// (no fork), and the tiles and bundles verify against it.
func TestKill9DuringIntegration(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s, dbURL := storetest.OpenURL(t, d)
			skey, _, err := GenerateKey("localhost:8080/svc/log")
			if err != nil {
				t.Fatal(err)
			}
			key, err := ParseKey(skey)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReader(s)
			v := verifier{t: t, key: key.VerifierKey, r: r}
			ns, _ := seedEntries(t, s, 10)
			drain(t, NewIntegrator(s, key, nil, nil), 1000)
			var trees []tlog.Tree
			idxDir := t.TempDir()
			resumed := uint64(0) // the largest size a start found its index at
			midway := 0          // kills made while the child was inside an integration
			const kills = 6
			for run := range kills {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), killChildDB+"="+dbURL, killChildKey+"="+skey,
					killChildRun+"="+strconv.Itoa(run), killChildNS+"="+ns.NamespaceID, killChildIdx+"="+idxDir)
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stderr = os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				lines := bufio.NewScanner(out)
				var from uint64
				if !lines.Scan() {
					_ = cmd.Process.Kill()
					t.Fatalf("child: %v", lines.Err())
				}
				if _, err := fmt.Sscanf(lines.Text(), "resumed %d", &from); err != nil {
					_ = cmd.Process.Kill()
					t.Fatalf("child: %q", lines.Text())
				}
				resumed = max(resumed, from)
				if !lines.Scan() || lines.Text() != "ready" {
					_ = cmd.Process.Kill()
					t.Fatalf("child: %q %v", lines.Text(), lines.Err())
				}
				// Follow the child's markers; after a random while, kill it right after it
				// announced an integration and before it announced its end.
				var last atomic.Value
				read := make(chan struct{})
				go func() {
					defer close(read)
					for lines.Scan() {
						last.Store(lines.Text())
					}
				}()
				time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
				for deadline := time.Now().Add(5 * time.Second); last.Load() != "+" && time.Now().Before(deadline); {
					runtime.Gosched()
				}
				if last.Load() == "+" {
					midway++
				}
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				<-read
				if err := cmd.Wait(); err == nil || cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("child %d ended by itself (%v) before the kill", run, err)
				}
				signed, _, err := r.Checkpoint(ctx)
				if err != nil {
					t.Fatal(err)
				}
				tree, err := v.open(signed)
				if err != nil {
					t.Fatalf("checkpoint after kill %d: %v", run, err)
				}
				if len(trees) > 0 && tree.N < trees[len(trees)-1].N {
					t.Fatalf("the log shrank from %d to %d", trees[len(trees)-1].N, tree.N)
				}
				trees = append(trees, tree)
			}
			waiting, err := s.LogQueueLength(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if resumed == 0 {
				t.Fatal("no start found its state index on disk")
			}
			final1 := NewIntegrator(s, key, nil, nil).WithStateIndex() // rebuilt from leaf 0: every root checked
			drain(t, final1, 1000)
			signed, _, err := r.Checkpoint(ctx)
			if err != nil {
				t.Fatal(err)
			}
			final, err := v.open(signed)
			if err != nil {
				t.Fatal(err)
			}
			for _, tree := range trees {
				p, err := r.Consistency(ctx, tree.N, final.N)
				if err != nil {
					t.Fatal(err)
				}
				if tree.N > 0 {
					if err := tlog.CheckTree(p, final.N, final.Hash, tree.N, tree.Hash); err != nil {
						t.Fatalf("the checkpoint of %d before a kill is not a prefix of the final %d: %v", tree.N, final.N, err)
					}
				}
			}
			// Every committed state root is the one the leaves give (each state leaf's size is
			// its own index: never two for one size), and the final checkpoint ends in one.
			versions, states, lastState := checkStates(t, v.checkTiles(ctx, final))
			if !lastState || states == 0 {
				t.Fatalf("%d state leaves; the final checkpoint ends in one: %v", states, lastState)
			}
			if _, checked := final1.StateIndexSize(); checked != states {
				t.Fatalf("the integrator started after the kills checked %d state roots of %d", checked, states)
			}
			// The index on disk that the killed processes left, resumed, reaches the same root.
			disk, err := indexstore.Open(idxDir, indexstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer disk.Close()
			if _, err := NewIntegrator(s, key, nil, nil).WithStateIndexIn(disk).IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			lastText, err := r.Leaf(ctx, final.N-1)
			if err != nil {
				t.Fatal(err)
			}
			stateLeaf, err := leaf.ParseState(lastText)
			if err != nil {
				t.Fatal(err)
			}
			if m, _ := disk.Meta(); m.Size != uint64(final.N) || m.Root != stateindex.Hash(stateLeaf.Root) {
				t.Fatalf("the index on disk after the kills: %d leaves, root %x; the log: %d leaves, its last state root %x", m.Size, m.Root, final.N, stateLeaf.Root)
			}
			seen := checkOrder(t, versions)
			// Every record that exists (the seeded ones and those the killed processes
			// committed) has its version in the log; nothing else is.
			reg, err := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
			if err != nil {
				t.Fatal(err)
			}
			inLog := 0
			for page := 1; ; page++ {
				recs, _, err := s.ListRecords(ctx, reg.RegistryID, store.ListOptions{Page: page, Size: 1000, Sort: "id"})
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					if rec.State == directory.StateDraft {
						continue
					}
					if !seen[rec.Version] {
						t.Fatalf("record %s version %s was written but is not in the log", rec.RecordName, rec.Version)
					}
					inLog++
				}
				if len(recs) < 1000 {
					break
				}
			}
			if want := inLog + 2; len(seen) != want { // and the namespace's and registry's versions
				t.Fatalf("%d leaves in the log, %d public versions in the directory", len(seen), want)
			}
			if midway == 0 {
				t.Fatalf("none of the %d kills came while the child was integrating", kills)
			}
			t.Logf("%d kills (%d inside an integration): %d leaves logged (%d state leaves, every root checked); checkpoints at the kills %v; %d waited after the last; the index on disk was resumed from up to %d leaves",
				kills, midway, final.N, states, sizes(trees), waiting, resumed)
		})
	}
}

func sizes(trees []tlog.Tree) []int64 {
	out := make([]int64, len(trees))
	for i, t := range trees {
		out[i] = t.N
	}
	return out
}
