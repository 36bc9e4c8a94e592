package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// TestLogMonitorStateRoots: the monitor rebuilds the state index from leaf 0 and checks every
// state root: a log whose integrator keeps the index passes, saying how many roots it
// checked; a log signed with its own key whose state leaf commits another root, an older
// root, or the root of another size, is refused with exit 1 naming the leaf.
func TestLogMonitorStateRoots(t *testing.T) {
	skey, vkey, err := translog.GenerateKey("example.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	l, ss := newStateService(t, lk, vkey)
	ns := l.populate("n")
	l.publish(ss)
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"second"}`)
	l.publish(ss)
	dir := t.TempDir()
	state := filepath.Join(dir, "m.json")
	code, out, errs := svc(t, "log", "monitor", "--url", l.srv.URL, "--log-key", vkey, "--state", state)
	if code != 0 || !strings.Contains(out, "; 2 state roots checked by rebuilding the index from leaf 0 (2 new)") {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"third"}`)
	l.publish(ss)
	if code, out, errs := svc(t, "log", "monitor", "--url", l.srv.URL, "--log-key", vkey, "--state", state); code != 0 ||
		!strings.Contains(out, "; 3 state roots checked by rebuilding the index from leaf 0 (1 new)") {
		t.Fatalf("second run: exit %d %q %q", code, out, errs)
	}

	ver := func(count int64, version string) []byte {
		b, err := leaf.Leaf{Kind: "namespace", NamespaceID: "ns1", Version: version, VersionCount: count, Digest: "0x00"}.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := stateindex.NewBuilder(stateindex.NewMemStore())
	root1, err := b.Apply(ver(1, "0x01"))
	if err != nil {
		t.Fatal(err)
	}
	st := func(root [32]byte, size int64) []byte {
		x, err := leaf.StateLeaf{Root: root, Size: size, Time: 1}.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	if code, out, _ := svc(t, "log", "monitor", "--url", forgedLog(t, lk, [][]byte{ver(1, "0x01"), st(root1, 1)}).URL, "--log-key", vkey,
		"--state", filepath.Join(dir, "ok.json")); code != 0 || !strings.Contains(out, "1 state roots checked") {
		t.Fatalf("a right root: exit %d %q", code, out)
	}
	for name, leaves := range map[string][][]byte{
		"another root":    {ver(1, "0x01"), st([32]byte{1}, 1)},
		"an older root":   {ver(1, "0x01"), st(root1, 1), ver(2, "0x02"), st(root1, 3)},
		"the empty index": {ver(1, "0x01"), st([32]byte{}, 1)},
	} {
		code, out, _ := svc(t, "log", "monitor", "--url", forgedLog(t, lk, leaves).URL, "--log-key", vkey, "--state", filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json"))
		if code != 1 || !strings.HasPrefix(out, "FAILED: ") || !strings.Contains(out, "does not match the rebuilt index: leaf") {
			t.Errorf("%s: exit %d %q", name, code, out)
		}
	}
	// A state leaf whose size is not its own index is refused as a leaf.
	if code, out, _ := svc(t, "log", "monitor", "--url", forgedLog(t, lk, [][]byte{ver(1, "0x01"), st(root1, 0)}).URL, "--log-key", vkey,
		"--state", filepath.Join(dir, "size.json")); code != 1 || !strings.Contains(out, "a state leaf of size 0") {
		t.Errorf("a state leaf of another size: exit %d %q", code, out)
	}
}
