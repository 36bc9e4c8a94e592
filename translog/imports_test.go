package translog

import (
	"os/exec"
	"strings"
	"testing"
)

// The log's floors: translog/leaf (what an offline verifier needs) and translog/logstore (the
// words the log and its storage share) import only the standard library and golang.org/x/mod;
// translog imports neither the store nor any database package. `svc verify` and `svc log
// monitor` verify with these packages alone.
func TestImportFloors(t *testing.T) {
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		m := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			path, std, _ := strings.Cut(line, " ")
			m[path] = std == "true"
		}
		return m
	}
	const self = "github.com/svc-directory/svc/"
	for _, floor := range []string{"leaf", "logstore"} {
		for path, std := range deps("./" + floor) {
			if !std && !strings.HasPrefix(path, "golang.org/x/mod/") && !strings.HasPrefix(path, self+"translog/") {
				t.Errorf("translog/%s depends on %s: only the standard library and golang.org/x/mod are allowed", floor, path)
			}
		}
	}
	for path := range deps(".") {
		for _, banned := range []string{"gorm", "pgx", "sqlite", "goose", "modernc", self + "store"} {
			if strings.Contains(path, banned) {
				t.Errorf("translog depends on %s", path)
			}
		}
	}
}
