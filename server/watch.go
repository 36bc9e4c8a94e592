package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/webhook"
)

// Watch subscriptions (docs/webhooks.md): the caller's webhooks on new versions of entries.

// CreateWatchSubscription subscribes the caller; the answer holds the signing secret, once.
func (s *Server) CreateWatchSubscription(ctx context.Context, req gen.CreateWatchSubscriptionRequestObject) (gen.CreateWatchSubscriptionResponseObject, error) {
	b := req.Body
	// The URL is kept as the rule normalises it, the form each delivery reads it in.
	u, err := webhook.CheckURL(b.WebhookUrl, s.webhookInsecure)
	if err != nil {
		return nil, problem(http.StatusBadRequest, "Invalid input: webhook_url: "+err.Error())
	}
	target, err := watchTarget(b)
	if err != nil {
		return nil, err
	}
	sub, err := s.store.CreateSubscription(ctx, caller(ctx).ID, string(b.WatchType), target, u.String(), webhook.NewSecret())
	if errors.Is(err, directory.ErrNotFound) {
		return nil, problemf(http.StatusNotFound, "Not found: no %s with id %s to watch", b.WatchType, target)
	}
	if err != nil {
		return nil, err
	}
	w := watchOut(sub)
	return gen.CreateWatchSubscription201JSONResponse{Body: gen.WatchCreatedResponse{Message: "Subscription created", Data: gen.WatchCreated{
		SubscriptionId: w.SubscriptionId, WatchType: w.WatchType, TargetId: w.TargetId, NamespaceId: w.NamespaceId,
		WebhookUrl: w.WebhookUrl, State: w.State, CreatedAt: w.CreatedAt, FailingSince: w.FailingSince, Secret: sub.Secret,
		RegistryTag: w.RegistryTag,
	}}}, nil
}

// watchTarget is what a subscription watches: target_id, or for a tag watch registry_tag
// (and never both).
func watchTarget(b *gen.CreateWatchRequest) (string, error) {
	if b.WatchType == gen.WatchTypeTag {
		if b.TargetId != nil || b.RegistryTag == nil {
			return "", problem(http.StatusBadRequest, "Invalid input: a tag watch names its tag in registry_tag, and has no target_id")
		}
		return string(*b.RegistryTag), nil
	}
	if b.TargetId == nil || b.RegistryTag != nil {
		return "", problemf(http.StatusBadRequest, "Invalid input: a %s watch names the %s in target_id, and has no registry_tag", b.WatchType, b.WatchType)
	}
	return *b.TargetId, nil
}

// ListWatchSubscriptions lists the caller's subscriptions.
func (s *Server) ListWatchSubscriptions(ctx context.Context, _ gen.ListWatchSubscriptionsRequestObject) (gen.ListWatchSubscriptionsResponseObject, error) {
	subs, err := s.store.Subscriptions(ctx, caller(ctx).ID)
	if err != nil {
		return nil, err
	}
	out := gen.ListWatchSubscriptions200JSONResponse{Message: "Subscriptions found", Data: make([]gen.WatchSubscription, len(subs))}
	for i, sub := range subs {
		out.Data[i] = watchOut(sub)
	}
	return out, nil
}

// GetWatchSubscription reads one of the caller's subscriptions.
func (s *Server) GetWatchSubscription(ctx context.Context, req gen.GetWatchSubscriptionRequestObject) (gen.GetWatchSubscriptionResponseObject, error) {
	sub, err := s.store.Subscription(ctx, caller(ctx).ID, req.SubscriptionId)
	if err != nil {
		return nil, notFound(err, "Subscription not found")
	}
	return gen.GetWatchSubscription200JSONResponse{Message: "Subscription found", Data: watchOut(sub)}, nil
}

// DeleteWatchSubscription deletes one of the caller's subscriptions.
func (s *Server) DeleteWatchSubscription(ctx context.Context, req gen.DeleteWatchSubscriptionRequestObject) (gen.DeleteWatchSubscriptionResponseObject, error) {
	if err := s.store.DeleteSubscription(ctx, caller(ctx).ID, req.SubscriptionId); err != nil {
		return nil, notFound(err, "Subscription not found")
	}
	return gen.DeleteWatchSubscription200JSONResponse{MessageAfterWriteJSONResponse: gen.MessageAfterWriteJSONResponse{Body: gen.Message{Message: "Subscription deleted"}}}, nil
}

// ListWatchDeliveries is the delivery history of one of the caller's subscriptions.
func (s *Server) ListWatchDeliveries(ctx context.Context, req gen.ListWatchDeliveriesRequestObject) (gen.ListWatchDeliveriesResponseObject, error) {
	ds, err := s.store.Deliveries(ctx, caller(ctx).ID, req.SubscriptionId, 100)
	if err != nil {
		return nil, notFound(err, "Subscription not found")
	}
	out := gen.ListWatchDeliveries200JSONResponse{Message: "Deliveries found", Data: make([]gen.WatchDelivery, len(ds))}
	for i, d := range ds {
		out.Data[i] = gen.WatchDelivery{EventId: d.EventID, Attempt: d.Attempt, AttemptedAt: ts(d.At), StatusCode: d.StatusCode,
			Error: d.Error, Delivered: d.Delivered}
	}
	return out, nil
}

func watchOut(sub store.Subscription) gen.WatchSubscription {
	w := gen.WatchSubscription{SubscriptionId: sub.ID, WatchType: gen.WatchType(sub.WatchType), TargetId: sub.TargetID,
		WebhookUrl: sub.WebhookURL, State: gen.WatchState(sub.State), CreatedAt: ts(sub.CreatedAt),
		FailingSince: tsPtr(sub.FailingSince)}
	if sub.WatchType == store.WatchTag {
		tag := gen.WatchRegistryTag(sub.TargetID)
		w.RegistryTag = &tag
	} else {
		ns := sub.NamespaceID
		w.NamespaceId = &ns
	}
	return w
}
