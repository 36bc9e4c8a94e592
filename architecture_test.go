package svc

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The import rules of docs/architecture.md, checked on the module's own packages: each floor
// imports only floors below it, the domain core and the log's leaf are pure, and nothing below
// the server knows the generated contract code.

const module = "github.com/svc-directory/svc"

// floors lists the service's packages from the top down; a package may import the packages
// of the floors below its own (and never one above, nor one of its own floor unless listed
// in sameFloor).
var floors = [][]string{
	{"cmd/svc"},
	{"server"},
	{"explorer"},
	{"entries", "ownership", "csvjob", "webhook", "translog", "dedi/ingest", "trqp"},
	{"store", "translog/indexstore"},
	{"directory", "dedi/fetch", "dedi/discovery"},
	{"domainverify", "dedi"},
	{"recordschema", "proof", "translog/logstore", "translog/leaf", "translog/stateindex"},
	{"internal/cache", "internal/groupread", "internal/jsonlog"},
}

// sameFloor lists the imports allowed within a floor: the state index is a function of the
// log's leaves, so it reads them with their own parser.
var sameFloor = map[string][]string{"translog/stateindex": {"translog/leaf"}}

// aside are the module's packages that stand beside the floors: the contract and its generated
// code, the Go SDK, and the helpers of tests.
var aside = []string{"", "gen", "gen/models", "gen/client", "client", "clustertest", "internal/testdb",
	"internal/testclock", "internal/storetest", "domainverify/dnstest", "translog/witnesstest", "translog/witnesstest/witness",
	"bench/echobase", "bench/httpbench"}

// databasePackages are the import path prefixes of the database layer (database/sql/driver,
// which identifier types such as UUIDs implement, is not one).
var databasePackages = []string{"gorm.io/", "github.com/jackc/pgx", "github.com/pressly/goose", "modernc.org/",
	"github.com/libtnb/sqlite", "database/sql"}

func isDatabasePackage(p string) bool {
	for _, db := range databasePackages {
		if p == db || strings.HasPrefix(p, db) && strings.HasSuffix(db, "/") || strings.HasPrefix(p, db+"/") && db != "database/sql" {
			return true
		}
	}
	return false
}

// pure packages import no database, HTTP or generated package, directly or through others.
var pure = []string{"directory", "dedi", "translog/leaf", "translog/logstore", "translog/stateindex", "proof"}

type pkgInfo struct{ imports, deps []string }

func listPackages(t *testing.T) map[string]pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkgInfo{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "|", 3)
		if len(parts) != 3 {
			continue
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(parts[0], module), "/")] = pkgInfo{
			imports: strings.Fields(parts[1]), deps: strings.Fields(parts[2])}
	}
	return pkgs
}

func floorOf(pkg string) int {
	for i, f := range floors {
		if slices.Contains(f, pkg) {
			return i
		}
	}
	return -1
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	for _, f := range floors {
		for _, p := range f {
			if _, ok := pkgs[p]; !ok {
				t.Errorf("floors name %s, which is not a package of the module", p)
			}
		}
	}
	for p, info := range pkgs {
		floor := floorOf(p)
		if floor < 0 && !slices.Contains(aside, p) {
			t.Errorf("package %s has no floor: give it one in floors (and a line in docs/architecture.md)", p)
		}
		for _, imp := range info.imports {
			own, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if strings.HasPrefix(own, "gen") && floor > floorOf("server") {
				t.Errorf("%s imports %s: below the server, nothing knows the generated contract code", p, own)
			}
			to := floorOf(own)
			if floor >= 0 && to >= 0 && (to < floor || to == floor && !slices.Contains(sameFloor[p], own)) {
				t.Errorf("%s (floor %d) imports %s (floor %d): a package imports only the floors below its own", p, floor, own, to)
			}
		}
	}
	for _, p := range pure {
		info, ok := pkgs[p]
		if !ok {
			t.Errorf("pure package %s is missing", p)
			continue
		}
		for _, d := range info.deps {
			if isDatabasePackage(d) {
				t.Errorf("%s depends on %s: the domain core and the log's leaf use no database", p, d)
			}
			if d == "net/http" || strings.HasPrefix(d, module+"/gen") || strings.HasPrefix(d, "github.com/labstack/") {
				t.Errorf("%s depends on %s: the domain core and the log's leaf speak no HTTP and know no generated code", p, d)
			}
		}
	}
}

// TestStoreIsOnlyPersistence: store/ holds at most 30% of the module's hand-written Go lines (its
// non-test files; gen/ is generated), so that the rules of the directory stay in the domain
// core and the workflows above it instead of growing back into the persistence layer.
func TestStoreIsOnlyPersistence(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	var store, all int
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "gen/") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue // listed but deleted in the work tree
		}
		n := bytes.Count(b, []byte("\n"))
		all += n
		if strings.HasPrefix(f, "store/") {
			store += n
		}
	}
	if all == 0 {
		t.Fatal("no Go files found")
	}
	share := float64(store) / float64(all)
	t.Logf("store/ holds %d of %d hand-written Go lines (%.1f%%)", store, all, 100*share)
	if share > 0.30 {
		t.Errorf("store/ holds %.1f%% of the hand-written Go lines (%d of %d); the rule is at most 30%%: move what is not persistence out of it", 100*share, store, all)
	}
}
