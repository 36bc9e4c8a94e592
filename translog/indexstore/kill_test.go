package indexstore

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/svc-directory/svc/translog/stateindex"
)

// The process TestKill9DuringCommits kills is this test binary started again with this
// variable set to the store's directory: TestMain runs killChild instead of the tests.
const killChildDir = "SVC_INDEXSTORE_KILL_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(killChildDir); dir != "" {
		os.Exit(killChild(dir))
	}
	os.Exit(m.Run())
}

// killLeaves is the log the killed processes index, the same in each.
func killLeaves() [][]byte { return recordLeaves(20000, 3) }

// killChild resumes the store in dir and applies the log's leaves from where it is, committing
// every 1 to 200 leaves, until it is killed (or done). It prints the size it resumed from.
func killChild(dir string) int {
	s, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	leaves := killLeaves()
	m, _ := s.Meta()
	fmt.Println(m.Size)
	f := stateindex.ResumeFollower(s, m.Size, m.Root, false)
	for i := int(m.Size); i < len(leaves); {
		ov := stateindex.NewOverlay(s)
		of := stateindex.ResumeFollower(ov, f.Size(), f.Root(), false)
		for end := min(len(leaves), i+1+rand.IntN(200)); i < end; i++ {
			if err := of.Apply(leaves[i]); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 3
			}
		}
		if err := s.Commit(ov, Meta{Size: of.Size(), Root: of.Root()}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		f = stateindex.ResumeFollower(s, of.Size(), of.Root(), false)
	}
	return 0
}

// kill -9 of a process committing to the store, at random moments, again and again: each start
// finds the store at one committed size (never less than the last start found), whose root is
// the one the leaves give, and the next process goes on from there to the same final index as
// a build in memory.
func TestKill9DuringCommits(t *testing.T) {
	dir := t.TempDir()
	leaves := killLeaves()
	last := uint64(0)
	run := func(kill bool) uint64 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildDir+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		if !lines.Scan() {
			t.Fatalf("child: %v", lines.Err())
		}
		from, err := strconv.ParseUint(lines.Text(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if kill {
			time.Sleep(time.Duration(50+rand.IntN(250)) * time.Millisecond)
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		err = cmd.Wait()
		if !kill && err != nil {
			t.Fatalf("the last child: %v", err)
		}
		return from
	}
	killed := 0
	for range 8 {
		from := run(true)
		if from < last {
			t.Fatalf("a start found the store at %d leaves, after one that found %d", from, last)
		}
		last = from
		killed++
	}
	from := run(false)
	s := open(t, dir)
	defer s.Close()
	m, ok := s.Meta()
	if !ok || m.Size != uint64(len(leaves)) {
		t.Fatalf("after the last run the store holds %d leaves (%v), want %d", m.Size, ok, len(leaves))
	}
	mem := stateindex.NewBuilder(stateindex.NewMemStore())
	for _, l := range leaves {
		if _, err := mem.Apply(l); err != nil {
			t.Fatal(err)
		}
	}
	if m.Root != mem.Root() {
		t.Fatalf("the store's root after %d kills is %x, the leaves give %x", killed, m.Root, mem.Root())
	}
	f := stateindex.ResumeFollower(s, m.Size, m.Root, false)
	for rec := 0; rec < 500; rec++ {
		key := stateindex.IDKey(fmt.Sprintf("0193a1b2-0000-7000-8000-%012x", rec))
		_, st, err := f.ProveKey(key)
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := mem.Prove(key)
		if fmt.Sprint(st.List) != fmt.Sprint(want) {
			t.Fatalf("record %d: list %v, want %v", rec, st.List, want)
		}
	}
	if last == 0 || from == 0 {
		t.Fatalf("no start resumed from a committed size (last killed start %d, final start %d)", last, from)
	}
	t.Logf("%d kills; the starts resumed from up to %d leaves, the last from %d", killed, last, from)
}
