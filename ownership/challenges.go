package ownership

import (
	"context"
	"errors"
	"fmt"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/store"
)

// Generate is what generate-dns-txt asks for: the namespace (whose member asks) wants to
// verify the normalized domain by Method; for request_other_namespace, Target names the
// namespace asked to attest it (id or verified domain).
type Generate struct {
	NamespaceID string
	Domain      string
	Method      string
	Target      string
	By          store.User
}

// Generated is the answer of Generate: the verification value (new or already stored), and for
// a delegated request the pending request.
type Generated struct {
	TXT     string
	Created bool           // a new value, or a new request
	Request *store.Request // request_other_namespace
}

// Generate makes (or returns) the namespace's verification value for the domain, or sends a
// delegated request to the target namespace. The domain must be free, the namespace without
// another domain; a self method needs the domain in the global registry, a delegated request
// the delegation rule (see requestAttestation).
func (v *Service) Generate(ctx context.Context, in Generate) (Generated, error) {
	ns, err := v.store.GetNamespace(ctx, in.NamespaceID, directory.VersionSel{})
	if err != nil {
		return Generated{}, err
	}
	holder, err := v.store.DomainHolder(ctx, in.Domain)
	if err != nil {
		return Generated{}, err
	}
	switch {
	case holder != "" && holder != in.NamespaceID:
		return Generated{}, refuse(Invalid, store.ErrDomainTaken, "Domain "+in.Domain+" is already verified by another namespace")
	case holder == in.NamespaceID:
		return Generated{}, refuse(Invalid, nil, "Domain "+in.Domain+" is already verified for this namespace")
	case ns.Domain != "":
		return Generated{}, refuse(Invalid, store.ErrNamespaceHasDomain,
			fmt.Sprintf("This namespace already has the verified domain %s; remove that verification first", ns.Domain))
	}
	txt, err := domainverify.NewTXTValue()
	if err != nil {
		return Generated{}, err
	}
	if in.Method == store.MethodDelegated {
		return v.requestAttestation(ctx, in, txt)
	}
	ok, err := v.store.DomainAllowed(ctx, in.Domain)
	if err != nil {
		return Generated{}, err
	}
	if !ok {
		return Generated{}, notAllowed(in.Domain)
	}
	ch, created, err := v.store.EnsureChallenge(ctx, in.NamespaceID, in.Domain, in.Method, txt)
	if err != nil {
		return Generated{}, err
	}
	return Generated{TXT: ch.TXT, Created: created}, nil
}

// Verified is the answer of Verify.
type Verified struct {
	Domain string
	Method string // self_dns or self_http
	Detail string // what the check found
}

// Verify checks the namespace's generated value for the domain (raw input; "" when the
// namespace has a value for one domain only) over DNS, then HTTP, and on a match makes the
// namespace the holder of the domain. A domain that left the global registry since its value
// was generated is not checked, and is refused again in the transaction that records the
// verification (under a share lock of its allow-list entries on Postgres), so that a domain
// disallowed while its check ran is not verified.
func (v *Service) Verify(ctx context.Context, namespaceID, domain string, by store.Principal) (Verified, error) {
	chs, err := v.store.Challenges(ctx, namespaceID)
	if err != nil {
		return Verified{}, err
	}
	var ch *store.Challenge
	switch {
	case domain != "":
		d, err := normalize(domain)
		if err != nil {
			return Verified{}, err
		}
		for i := range chs {
			if chs[i].Domain == d {
				ch = &chs[i]
			}
		}
	case len(chs) > 1:
		return Verified{}, refuse(Invalid, nil, "Invalid input: this namespace has verification values for several domains; give domain")
	case len(chs) == 1:
		ch = &chs[0]
	}
	if ch == nil {
		return Verified{}, refuse(NotFound, nil, "No TXT record was generated for this namespace and domain; call generate-dns-txt first")
	}
	if ok, err := v.store.DomainAllowed(ctx, ch.Domain); err != nil {
		return Verified{}, err
	} else if !ok {
		return Verified{}, notAllowed(ch.Domain)
	}
	if v.checker == nil {
		return Verified{}, errors.New("domain verification is not configured (no checker)")
	}
	res := v.checker.Check(ctx, ch.Domain, ch.TXT)
	if !res.OK {
		if res.HTTPMismatch {
			return Verified{}, refuse(Invalid, nil, "Verification failed: file content mismatch. "+res.Detail)
		}
		return Verified{}, refuse(Invalid, nil, "Verification failed: "+res.Detail+" (DNS changes can take 5 to 30 minutes to be seen)")
	}
	method := store.MethodSelfDNS
	if res.Method == "http" {
		method = store.MethodSelfHTTP
	}
	if err := v.MarkSelfVerified(ctx, namespaceID, ch.Domain, method, by); err != nil {
		return Verified{}, err
	}
	return Verified{Domain: ch.Domain, Method: method, Detail: res.Detail}, nil
}

// MarkSelfVerified makes the namespace the holder of the domain through a self method, for by
// (still a member of it, stillMember), in one transaction that requires the domain to be in the
// global registry (locking the entries that cover it on Postgres until it commits).
func (v *Service) MarkSelfVerified(ctx context.Context, namespaceID, domain, method string, by store.Principal) error {
	err := v.store.InTx(ctx, func(tx *store.Tx) error {
		if err := stillMember(tx, namespaceID, by); err != nil {
			return err
		}
		ok, err := tx.DomainAllowed(domain, true)
		if err != nil {
			return err
		}
		if !ok {
			return notAllowed(domain)
		}
		return tx.ClaimDomain(namespaceID, domain, method, "", v.now().Add(v.cfg.Interval))
	})
	switch {
	case errors.Is(err, store.ErrDomainTaken):
		return refuse(Invalid, err, "Domain "+domain+" is already in use: another namespace verified it")
	case errors.Is(err, store.ErrNamespaceHasDomain):
		return refuse(Invalid, err, "This namespace already has another verified domain; remove that verification first")
	}
	return err
}

// Challenge returns the namespace's newest generated value.
func (v *Service) Challenge(ctx context.Context, namespaceID string) (store.Challenge, error) {
	chs, err := v.store.Challenges(ctx, namespaceID)
	if err != nil {
		return store.Challenge{}, err
	}
	if len(chs) == 0 {
		return store.Challenge{}, refuse(NotFound, nil, "No domain or TXT record for this namespace")
	}
	return chs[0], nil
}

// Removal is what Remove did.
type Removal struct {
	Methods        []string // the methods whose data went
	RemovedTargets []string // the attesting namespaces of the removed requests
	RemovedEntries int64    // sources, values and requests removed
	DomainRemoved  bool     // the namespace no longer holds the domain
	StillVerified  bool     // it still holds it through another source
}

// Remove removes the namespace's verification data for the normalized domain: its sources,
// its generated value, and its pending or accepted delegated requests; the domain leaves the
// namespace when no source remains. A pair with no such data is refused (not found). by must
// still be a member of the namespace when the transaction has locked it (stillMember).
func (v *Service) Remove(ctx context.Context, namespaceID, domain string, by store.Principal) (Removal, error) {
	out := Removal{Methods: []string{}, RemovedTargets: []string{}}
	err := v.store.InTx(ctx, func(tx *store.Tx) error {
		if err := stillMember(tx, namespaceID, by); err != nil {
			return err
		}
		srcs, err := tx.LockSources(namespaceID, domain)
		if err != nil {
			return err
		}
		reqs, err := tx.OpenRequests(namespaceID, domain)
		if err != nil {
			return err
		}
		if len(srcs) == 0 && len(reqs) == 0 {
			return refuse(NotFound, directory.ErrNotFound, "No verification data for this namespace and domain")
		}
		seen := map[string]bool{}
		for _, src := range srcs {
			if !seen[src.Method] {
				out.Methods = append(out.Methods, src.Method)
				seen[src.Method] = true
			}
		}
		for _, r := range reqs {
			out.RemovedTargets = append(out.RemovedTargets, r.TargetNamespaceID)
			if !seen[store.MethodDelegated] {
				out.Methods = append(out.Methods, store.MethodDelegated)
				seen[store.MethodDelegated] = true
			}
		}
		for _, del := range []func(string, string) (int64, error){tx.DeleteSources, tx.DeleteChallenge, tx.RemoveOpenRequests} {
			n, err := del(namespaceID, domain)
			if err != nil {
				return err
			}
			out.RemovedEntries += n
		}
		// The loss is logged with the method of the oldest source (the one that gained it).
		method := ""
		if len(srcs) > 0 {
			method = srcs[0].Method
		}
		out.DomainRemoved, out.StillVerified, err = tx.ReleaseDomain(namespaceID, domain, method)
		return err
	})
	if err != nil {
		return Removal{Methods: []string{}, RemovedTargets: []string{}}, err
	}
	return out, nil
}

// validMethod reports whether m is a method a namespace may ask for.
func validMethod(m string) bool {
	return m == store.MethodSelfDNS || m == store.MethodSelfHTTP || m == store.MethodDelegated
}

// CheckInput applies the checks of generate-dns-txt's input that come before any lookup: the
// method is required and one of self_dns, self_http, request_other_namespace, and the domain is normalized (returned).
func CheckInput(method, domain string) (string, error) {
	switch {
	case method == "":
		return "", refuse(Invalid, nil, "Invalid input: verification_method is required (self_dns, self_http or request_other_namespace)")
	case !validMethod(method):
		return "", refuse(Invalid, nil, fmt.Sprintf("Invalid input: verification_method %q is not one of self_dns, self_http, request_other_namespace", method))
	}
	return normalize(domain)
}

// NormalizeDomain is domainverify.NormalizeDomain with its error as a refusal.
func NormalizeDomain(domain string) (string, error) { return normalize(domain) }
