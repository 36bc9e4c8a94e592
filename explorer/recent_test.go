package explorer

import (
	"encoding/binary"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBundlePath(t *testing.T) {
	for _, c := range []struct {
		n    int64
		w    int
		want string
	}{{0, 256, "entries/000"}, {0, 5, "entries/000.p/5"}, {1234067, 17, "entries/x001/x234/067.p/17"}, {1000, 256, "entries/x001/000"}} {
		if got := bundlePath(c.n, c.w); got != "/svc/log/tile/entries/"+strings.TrimPrefix(c.want, "entries/") {
			t.Errorf("bundlePath(%d, %d) = %s, want %s", c.n, c.w, got, c.want)
		}
	}
}

func bundle(leaves ...string) string {
	var b []byte
	for _, l := range leaves {
		b = binary.BigEndian.AppendUint16(b, uint16(len(l)))
		b = append(b, l...)
	}
	return string(b)
}

// TestRecent: the home page's recent namespaces and registries come from the log's last two
// entry bundles, newest first, across the bundles' boundary; a namespace whose query is
// missing (deleted since) is left out; other leaves (state, domain) are skipped.
func TestRecent(t *testing.T) {
	leaf := func(kind, ns, reg string) string {
		if reg == "" {
			return fmt.Sprintf(`{"kind":%q,"namespace_id":%q}`, kind, ns)
		}
		return fmt.Sprintf(`{"kind":%q,"namespace_id":%q,"registry_id":%q}`, kind, ns, reg)
	}
	full := make([]string, 256)
	for i := range full {
		full[i] = `{"kind":"state","root":"x","size":1,"time":1}`
	}
	full[10] = leaf("namespace", "nsA", "")
	full[200] = leaf("record", "nsB", "rB1")
	last := []string{leaf("registry", "nsA", "rA1"), leaf("namespace", "gone", ""), `{"kind":"domain"}`, leaf("record", "nsA", "rA2")}
	api := fakeAPI{
		"/svc/log/tile/entries/000":     bundle(full...),
		"/svc/log/tile/entries/001.p/4": bundle(last...),
		"/svc/query/nsA?sort=date&page_size=50": map[string]any{"message": "ok", "data": map[string]any{"namespace_name": "A", "domain": "a.example", "total_registries": 2,
			"registries": []any{map[string]any{"registry_id": "rA1", "registry_name": "one", "state": "live", "record_count": 3}, map[string]any{"registry_id": "rA2", "registry_name": "two", "state": "revoked"}}}},
		"/svc/query/nsB?sort=date&page_size=50": map[string]any{"message": "ok", "data": map[string]any{"namespace_name": "B", "total_registries": 1,
			"registries": []any{map[string]any{"registry_id": "rB1", "registry_name": "bee", "state": "live"}}}},
	}
	x, err := New(Config{Source: api})
	if err != nil {
		t.Fatal(err)
	}
	ns, regs, links := x.recent(httptest.NewRequest("GET", "/explore", nil), 260)
	if len(links) != 4 { // two bundles, two namespaces' queries (the third answered 404)
		t.Errorf("links: %v", links)
	}
	var got []string
	for _, e := range ns {
		got = append(got, e.Name)
	}
	for _, e := range regs {
		got = append(got, e.Name+"/"+e.Reg)
	}
	if want := "A B A/two A/one B/bee"; strings.Join(got, " ") != want {
		t.Errorf("recent: %q, want %q", strings.Join(got, " "), want)
	}
}
