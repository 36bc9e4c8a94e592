package main

import (
	"errors"
	"io"
	"slices"
	"testing"
	"time"
)

// The replica settings: a comma-separated list (blanks dropped) with their defaults; replicas
// need a Postgres primary, and the lag bound and the token wait must be positive.
func TestServeConfigReplicas(t *testing.T) {
	t.Setenv("SVC_DATABASE_URL", "postgres://p@127.0.0.1/db")
	t.Setenv("SVC_DATABASE_REPLICA_URLS", " postgres://r1@127.0.0.1/db , ,postgres://r2@127.0.0.1/db")
	c, err := parseServeConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.ReplicaURLs, []string{"postgres://r1@127.0.0.1/db", "postgres://r2@127.0.0.1/db"}) ||
		c.ReplicaMaxLag != 2*time.Second || c.ConsistencyWait != 200*time.Millisecond {
		t.Fatalf("%q %v %v", c.ReplicaURLs, c.ReplicaMaxLag, c.ConsistencyWait)
	}
	for _, args := range [][]string{
		{"--database-url", "sqlite://x.db"},
		{"--replica-max-lag", "0s"},
		{"--consistency-wait", "0s"},
		{"--consistency-wait", "-1s"},
	} {
		if _, err := parseServeConfig(args, io.Discard); !errors.Is(err, errUsage) {
			t.Fatalf("%v: %v, want a usage error", args, err)
		}
	}
}

// The crawler's settings: their defaults, the environment and the flags, refused unless
// positive; the DID host svc dedi crawl names, as svc serve derives it, and refused when it
// cannot be told.
func TestServeConfigDediCrawl(t *testing.T) {
	c, err := parseServeConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.DediCrawlBudget != 10*time.Minute || c.DediMaxFiles != 1000 || c.DediCrawlConcurrency != 4 {
		t.Fatalf("defaults: %v %d %d", c.DediCrawlBudget, c.DediMaxFiles, c.DediCrawlConcurrency)
	}
	if err := c.settleDIDHostOffline(); err != nil || c.ServerDID() != "did:web:localhost%3A8080" {
		t.Fatalf("the DID without SVC_DID_HOST on :8080: %q, %v", c.ServerDID(), err)
	}
	t.Setenv("SVC_DEDI_CRAWL_BUDGET", "90s")
	t.Setenv("SVC_DEDI_MAX_FILES", "50")
	t.Setenv("SVC_DID_HOST", "dir.example")
	c, err = parseServeConfig([]string{"--dedi-crawl-concurrency", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ic := c.crawler(nil, nil, nil)
	if err := c.settleDIDHostOffline(); err != nil || ic.Budget != 90*time.Second || ic.MaxFiles != 50 || ic.Concurrency != 2 ||
		c.crawler(nil, nil, nil).CreatorDID != "did:web:dir.example" {
		t.Fatalf("set: %+v, %v", ic, err)
	}
	for _, args := range [][]string{
		{"--dedi-crawl-budget", "0s"},
		{"--dedi-max-files", "0"},
		{"--dedi-crawl-concurrency", "-1"},
	} {
		if _, err := parseServeConfig(args, io.Discard); !errors.Is(err, errUsage) {
			t.Fatalf("%v: %v, want a usage error", args, err)
		}
	}
	t.Setenv("SVC_DID_HOST", "")
	t.Setenv("SVC_ADDR", ":0")
	if c, err = parseServeConfig(nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := c.settleDIDHostOffline(); !errors.Is(err, errUsage) {
		t.Fatalf("no port to derive the DID from: %v", err)
	}
}
