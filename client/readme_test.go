package client_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/client"
)

// TestReadmeGoProgram runs the README's Go program as written, in a module of its own that
// requires this one (a replace directive points at the clone, as `go mod edit -replace` would for
// an integrator trying a checkout), against a live in-process service: it must publish the
// record, look it up and verify it. Without the go command it is skipped, except under CI=true.
func TestReadmeGoProgram(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the go command is required in CI")
		}
		t.Skip("SKIPPING: no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := strings.Index(string(readme), "## Integrators")
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(string(readme)[section:])
	if section < 0 || block == nil || !strings.HasPrefix(block[1], "package main\n") {
		t.Fatal("the README's Integrators section has no Go program (a ```go block starting with package main)")
	}

	dir := t.TempDir()
	goMod := "module example.com/readme\n\ngo 1.26.0\n\nrequire github.com/svc-directory/svc v0.0.0\n\nreplace github.com/svc-directory/svc => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{"go.mod": []byte(goMod), "go.sum": sum, "main.go": []byte(block[1])} {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	d := startDemo()
	defer d.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	owner, err := client.New(d.URL, d.Key)
	if err != nil {
		t.Fatal(err)
	}
	ns := publishAcme(ctx, owner)

	cmd := exec.CommandContext(ctx, goCmd, "run", ".")
	cmd.Dir = dir
	// The packages the program builds are in the module cache already (this module builds),
	// but an integrator's module loads a wider module graph than this one: the go.mod files of
	// dependencies that predate graph pruning (go-jsonmerge's go-jsoncommentstrip) may have to
	// be fetched, through the proxy the environment names, as an integrator's build would.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
		"SVC_URL="+d.URL, "SVC_API_KEY="+d.Key, "SVC_NAMESPACE="+ns)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's program: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^verified alice 0x[0-9a-f]{64}$`).Match(out) {
		t.Fatalf("the README's program printed:\n%s", out)
	}

	// Run again, the record exists: the program reports the 409 and exits 1 instead of going on
	// with a nil response.
	cmd = exec.CommandContext(ctx, goCmd, "run", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
		"SVC_URL="+d.URL, "SVC_API_KEY="+d.Key, "SVC_NAMESPACE="+ns)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "add-record: 409") {
		t.Fatalf("a second run: %v\n%s", err, out)
	}
}
