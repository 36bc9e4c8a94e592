package explorer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// The home page's recently updated namespaces and registries. The API has no list of every
// namespace by its last change, but the transparency log is exactly that: every public version
// of every entry is a leaf, in the order it was written. So the home page reads the log's latest
// leaves (its last entry bundles, GET /svc/log/tile/entries/..., at most 2 × 256 leaves), takes
// the namespaces and registries their versions are of (a record's version counts for its
// registry and namespace), newest first, and names them through each namespace's registry
// query (GET /svc/query/{namespace}: the namespace's name and domain, and its registries with
// their ids). A namespace or registry deleted since is left out (its query answers 404).

// recentShown is how many of each the home page lists.
const recentShown = 6

// recentEntry is one namespace or registry the home page lists.
type recentEntry struct {
	NS, Name, Domain, Reg string
	State                 string
	Count                 int64 // a namespace's registries, a registry's records
}

// bundlePath is the path of entry bundle n of width w (256: full) under /svc/log/tile/: N
// in groups of three digits, all but the last prefixed with x (C2SP tlog-tiles).
func bundlePath(n int64, w int) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		s = fmt.Sprintf("x%03d/%s", n%1000, s)
	}
	if w < 256 {
		s += ".p/" + strconv.Itoa(w)
	}
	return "/svc/log/tile/entries/" + s
}

// latestLeaves reads the leaves of the last entry bundles of a log of size leaves, newest first.
func (x *Explorer) latestLeaves(r *http.Request, size int64) ([][]byte, []link) {
	var out [][]byte
	var links []link
	for n, read := size/256, 0; n >= 0 && read < 2; n, read = n-1, read+1 {
		w := 256
		if n == size/256 {
			w = int(size % 256)
			if w == 0 {
				read-- // no partial bundle: the last full one counts as the first read
				continue
			}
		}
		a := x.get(r, bundlePath(n, w))
		if a.Status != http.StatusOK {
			break
		}
		links = append(links, link{"Latest log entries", a.Path})
		var leaves [][]byte
		for b := []byte(a.Text); len(b) >= 2; {
			l := int(binary.BigEndian.Uint16(b))
			if len(b) < 2+l {
				break
			}
			leaves, b = append(leaves, b[2:2+l]), b[2+l:]
		}
		for i := len(leaves) - 1; i >= 0; i-- {
			out = append(out, leaves[i])
		}
	}
	return out, links
}

// recent lists the namespaces and the registries of the log's latest versions, newest first.
func (x *Explorer) recent(r *http.Request, size int64) (namespaces, registries []recentEntry, links []link) {
	type reg struct{ ns, id string }
	var nsIDs []string
	var regs []reg
	seenNS, seenReg := map[string]bool{}, map[reg]bool{}
	leaves, links := x.latestLeaves(r, size)
	for _, text := range leaves {
		var l struct {
			Kind        string `json:"kind"`
			NamespaceID string `json:"namespace_id"`
			RegistryID  string `json:"registry_id"`
		}
		if json.Unmarshal(text, &l) != nil || l.NamespaceID == "" || l.Kind != "namespace" && l.Kind != "registry" && l.Kind != "record" {
			continue
		}
		if !seenNS[l.NamespaceID] && len(nsIDs) < recentShown {
			seenNS[l.NamespaceID] = true
			nsIDs = append(nsIDs, l.NamespaceID)
		}
		if g := (reg{l.NamespaceID, l.RegistryID}); g.id != "" && !seenReg[g] && len(regs) < recentShown {
			seenReg[g] = true
			regs = append(regs, g)
		}
		if len(nsIDs) == recentShown && len(regs) == recentShown {
			break
		}
	}
	// Each namespace's query names it and its registries (the 50 it changed last).
	type named struct {
		ns   recentEntry
		regs map[string]recentEntry
		ok   bool
	}
	read := map[string]named{}
	lookup := func(id string) named {
		if n, done := read[id]; done {
			return n
		}
		n := named{regs: map[string]recentEntry{}}
		if a := x.get(r, "/svc/query/"+apiSeg(id)+"?sort=date&page_size=50"); a.Status == http.StatusOK {
			links = append(links, link{"Registries of a recent namespace", a.Path})
			d := a.data()
			n.ok, n.ns = true, recentEntry{NS: id, Name: str(d["namespace_name"]), Domain: str(d["domain"]), Count: num(d["total_registries"])}
			for _, g := range list(d["registries"]) {
				n.regs[str(g["registry_id"])] = recentEntry{NS: id, Name: n.ns.Name, Reg: str(g["registry_name"]), State: str(g["state"]), Count: num(g["record_count"])}
			}
		}
		read[id] = n
		return n
	}
	for _, id := range nsIDs {
		if n := lookup(id); n.ok {
			namespaces = append(namespaces, n.ns)
		}
	}
	for _, g := range regs {
		if e, ok := lookup(g.ns).regs[g.id]; ok {
			registries = append(registries, e)
		}
	}
	return namespaces, registries, links
}
