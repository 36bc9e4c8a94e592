package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFilesBesideTheDatabaseAreIgnored: `make run` serves on sqlite://svc.db at the root of the
// repository; every file the embedded database leaves beside it (the database, its WAL and
// shared memory, the migration lock, the generated log key) must be ignored by git there, so
// that a clone stays clean. The files are made for real in a temporary directory and their
// names checked against the repository's .gitignore.
func TestFilesBesideTheDatabaseAreIgnored(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is required in CI")
		}
		t.Skip("SKIPPING: no git on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("SKIPPING: %s is not a git checkout", root)
	}
	dir := t.TempDir()
	if code, _, errs := svc(t, "migrate", "--database-url", "sqlite://"+filepath.Join(dir, "svc.db")); code != 0 {
		t.Fatalf("migrate: %d %s", code, errs)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"svc-log.key", "svc.db-wal", "svc.db-shm", "svc.db.index/"} // made by serve, or only while open
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, name := range names {
		// --no-index: whether .gitignore ignores the name, tracked or not
		cmd := exec.Command(git, "check-ignore", "-q", "--no-index", name)
		cmd.Dir = root
		if err := cmd.Run(); err != nil {
			t.Errorf("%s at the root of the repository is not ignored by .gitignore (git check-ignore: %v)", name, err)
		}
	}
	if len(names) < 4 {
		t.Fatalf("migrate left only %v beside the database", names)
	}
}
