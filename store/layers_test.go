package store_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The store's files form layers (docs/architecture.md): the foundation everything uses at the
// bottom, the read routing and the one version write above it, one concern per group of files
// above those, and the files that compose concerns (opening, the application's write paths,
// the dialects' strategies, migrations) at the top. A file may use the names declared in the
// files of lower layers and of its own concern; no concern's file uses another concern's file.
var layers = []struct {
	name     string
	concerns map[string][]string // concern -> its files
}{
	{"foundation", map[string][]string{
		"foundation": {"store.go", "tx.go", "errors.go", "unavailable.go", "ids.go", "values.go", "dialect.go", "sqlbuild.go", "replicatoken.go"},
	}},
	{"routing", map[string][]string{
		"replicas": {"replicaroute.go", "replicas.go", "primary.go", "replicapool.go", "replicametrics.go", "groupread.go"},
	}},
	{"entries", map[string][]string{
		"entries": {"entryrows.go", "writeaccess.go", "versions.go", "versionread.go", "counters.go"},
	}},
	{"concerns", map[string][]string{
		"namespaces":    {"namespaces.go", "namespacesearch.go"},
		"registries":    {"registries.go"},
		"records":       {"records.go", "lookupbatch.go"},
		"access":        {"users.go", "apikeys.go", "members.go", "registrydelegates.go"},
		"ownership":     {"challenges.go", "requests.go", "sources.go", "domainleaves.go", "verification.go", "allowlist.go"},
		"notifications": {"notifications.go"},
		"watches":       {"watch.go", "watchclaim.go", "watchtag.go"},
		"jobs":          {"jobs.go", "jobfailed.go"},
		"log":           {"translog.go", "logentry.go", "logrestart.go", "logrollback.go", "witness.go"},
		"dedi":          {"dedifiles.go", "dedipublishers.go", "dedikeys.go"},
		"queries":       {"query.go", "lifecycle.go", "search.go", "searchwalk.go", "searchtext.go"},
		"statistics":    {"stats.go", "analyze.go"},
		"settings":      {"settings.go"},
		"wakeups":       {"wake.go"},
		"deleted":       {"deletedlist.go"},
	}},
	{"composition", map[string][]string{
		"open":   {"open.go", "migrate.go", "dialect_open.go", "dialect_sqlite.go", "dialect_postgres.go"},
		"writes": {"writes.go", "publishbatch.go", "transfer.go", "dediindex.go", "importbatch.go", "deleted.go"},
		"reads":  {"lookuplogged.go"},
	}},
}

func TestStoreFilesFormLayers(t *testing.T) {
	where := map[string][2]string{} // file -> layer, concern
	rank := map[string]int{}
	for i, l := range layers {
		rank[l.name] = i
		for c, files := range l.concerns {
			for _, f := range files {
				where[f] = [2]string{l.name, c}
			}
		}
	}
	edges := fileUses(t)
	var bad []string
	for e, names := range edges {
		from, okf := where[e[0]]
		to, okt := where[e[1]]
		if !okf || !okt {
			for _, f := range []string{e[0], e[1]} {
				if _, ok := where[f]; !ok && !slices.Contains(bad, "unplaced "+f) {
					bad = append(bad, "unplaced "+f)
				}
			}
			continue
		}
		switch {
		case rank[to[0]] > rank[from[0]]:
			bad = append(bad, e[0]+" ("+from[0]+") uses the higher "+e[1]+" ("+to[0]+"): "+strings.Join(names, ", "))
		case rank[to[0]] == rank[from[0]] && to[1] != from[1]:
			bad = append(bad, e[0]+" ("+from[1]+") uses another concern's "+e[1]+" ("+to[1]+"): "+strings.Join(names, ", "))
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// fileUses type-checks the package's non-test files and lists, for each pair of files, the
// functions and methods one calls of the other, and the package-level variables it uses.
func fileUses(t *testing.T) map[[2]string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 {
			exports[f[0]] = f[1]
		}
	}
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("github.com/svc-directory/svc/store", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]string]map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg {
			continue
		}
		switch o := obj.(type) {
		case *types.Var:
			if o.IsField() || o.Parent() != pkg.Scope() {
				continue
			}
		case *types.Func:
		default:
			continue // types and constants are the package's vocabulary: a use is not a call
		}
		from, to := fset.Position(id.Pos()).Filename, fset.Position(obj.Pos()).Filename
		if from == to {
			continue
		}
		k := [2]string{filepath.Base(from), filepath.Base(to)}
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		seen[k][obj.Name()] = true
	}
	edges := map[[2]string][]string{}
	for k, ns := range seen {
		for n := range ns {
			edges[k] = append(edges[k], n)
		}
		sort.Strings(edges[k])
	}
	return edges
}
