package webhook

import (
	"strings"
	"testing"
	"time"
)

// The example of the Standard Webhooks specification (standard-webhooks.md, "Signature
// scheme"), which every conforming library reproduces.
func TestSignMatchesTheSpecificationExample(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

func TestSignRefusesABadSecretAndSecretsDiffer(t *testing.T) {
	if _, err := Sign("whsec_!!!", "id", time.Now(), nil); err == nil {
		t.Fatal("a secret that is not base64 signed")
	}
	a, b := NewSecret(), NewSecret()
	if a == b || !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+32 {
		t.Fatalf("secrets %q and %q", a, b)
	}
	h, err := Headers(a, "msg_1", time.Unix(1700000000, 0), []byte("{}"))
	if err != nil || h["webhook-id"] != "msg_1" || h["webhook-timestamp"] != "1700000000" || !strings.HasPrefix(h["webhook-signature"], "v1,") {
		t.Fatalf("headers %v, %v", h, err)
	}
}
