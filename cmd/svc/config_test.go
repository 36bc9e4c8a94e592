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
