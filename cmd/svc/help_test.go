package main

import (
	"strings"
	"testing"
)

// Every command and command group answers -h and --help with its help on exit status 0.
func TestHelpOnEveryCommand(t *testing.T) {
	commands := [][]string{
		{"serve"}, {"migrate"}, {"key", "create"}, {"key", "revoke"}, {"user", "disable"}, {"user", "add-key"},
		{"domain", "allow"}, {"domain", "disallow"}, {"import"}, {"verify"}, {"version"}, {"log", "key", "create"}, {"log", "monitor"},
	}
	for _, c := range commands {
		name := strings.Join(c, " ")
		for _, h := range []string{"-h", "--help", "-help"} {
			code, out, errs := svc(t, append(append([]string{}, c...), h)...)
			if code != 0 {
				t.Errorf("svc %s %s: exit %d, want 0 (%q)", name, h, code, errs)
			}
			if !strings.Contains(out+errs, "usage: svc "+name) {
				t.Errorf("svc %s %s: no usage line in %q", name, h, out+errs)
			}
		}
		if name != "version" {
			_, out, errs := svc(t, append(append([]string{}, c...), "-h")...)
			h := commandHelp[name]
			if h.text == "" || !strings.Contains(out+errs, h.text) {
				t.Errorf("svc %s -h: no description (%q)", name, out+errs)
			}
		}
		// "svc help CMD" is the same as "svc CMD -h".
		if code, out, errs := svc(t, append([]string{"help"}, c...)...); code != 0 || !strings.Contains(out+errs, "usage: svc "+name) {
			t.Errorf("svc help %s: %d %q", name, code, out+errs)
		}
	}
	for _, group := range []string{"key", "user", "domain"} {
		if code, _, errs := svc(t, group, "-h"); code != 0 || !strings.Contains(errs, "usage: svc "+group) {
			t.Errorf("svc %s -h: %d %q", group, code, errs)
		}
		if code, _, _ := svc(t, group); code != 2 {
			t.Errorf("svc %s without a subcommand: exit %d, want 2", group, code)
		}
	}
	for _, h := range []string{"-h", "--help", "help"} {
		if code, out, _ := svc(t, h); code != 0 || !strings.Contains(out, "commands:") {
			t.Errorf("svc %s: %d %q", h, code, out)
		}
	}
	// A wrong flag is still a usage error.
	if code, _, _ := svc(t, "verify", "--no-such-flag", "x"); code != 2 {
		t.Errorf("svc verify --no-such-flag: exit %d, want 2", code)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errs := svc(t, args...)
		if code != 0 || !strings.HasPrefix(out, "svc ") || strings.Count(out, "\n") != 1 {
			t.Errorf("svc %v: %d %q %q", args, code, out, errs)
		}
	}
	// The Makefile stamps the release with -ldflags "-X main.version=...".
	old := version
	version = "v9.8.7"
	t.Cleanup(func() { version = old })
	if _, out, _ := svc(t, "version"); !strings.HasPrefix(out, "svc v9.8.7 (go") {
		t.Errorf("svc version with main.version set: %q", out)
	}
	if code, _, _ := svc(t, "version", "extra"); code != 2 {
		t.Errorf("svc version extra: exit %d, want 2", code)
	}
}

// An unknown log level is refused before anything is opened: exit status 2 and a message.
func TestServeRefusesUnknownLogLevel(t *testing.T) {
	t.Setenv("SVC_DATABASE_URL", "sqlite://"+t.TempDir()+"/never.db")
	t.Setenv("SVC_LOG_LEVEL", "verbose")
	code, _, errs := svc(t, "serve", "--addr", "127.0.0.1:0")
	if code != 2 || !strings.Contains(errs, `log level "verbose"`) {
		t.Fatalf("SVC_LOG_LEVEL=verbose: exit %d, %q", code, errs)
	}
	t.Setenv("SVC_LOG_LEVEL", "")
	code, _, errs = svc(t, "serve", "--addr", "127.0.0.1:0", "--log-level", "loud")
	if code != 2 || !strings.Contains(errs, `log level "loud"`) {
		t.Fatalf("--log-level loud: exit %d, %q", code, errs)
	}
	for _, ok := range []string{"debug", "INFO", "warn", "error"} {
		if _, err := parseLogLevel(ok); err != nil {
			t.Errorf("parseLogLevel(%q): %v", ok, err)
		}
	}
}

// An unknown command is answered with the error and one hint line, not the whole usage.
func TestUnknownCommandIsShort(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"key", "bogus"}, {"frobnicate", "--x"}} {
		code, out, errs := svc(t, args...)
		if code != 2 || out != "" {
			t.Errorf("svc %v: exit %d, stdout %q", args, code, out)
		}
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "unknown command") || !strings.Contains(lines[1], `"svc help"`) {
			t.Errorf("svc %v: stderr %q, want the error and one hint line", args, errs)
		}
	}
}
