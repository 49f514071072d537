package org.packyard.store;

import java.time.Instant;
import java.util.List;

/**
 * The changes feed and the webhook deliveries, kept in the state store: every published snapshot
 * as an event with a cursor (oldest first), and every delivery of an event to a webhook until it
 * is delivered or given up, so a restart loses none. The embedded default is
 * {@link SqliteFeedStore} in {@code data/state.db}. Blocking: call from worker threads.
 */
public interface FeedStore extends AutoCloseable {

  /** One event; {@code json} is the whole event object as served, cursor excluded. */
  record Change(long cursor, String type, String repository, String snapshot, Instant time, String json) {}

  /** One delivery of one event to one webhook. {@code state}: pending, delivered or failed (given up). */
  record Delivery(String id, String webhook, String event, String body, int attempts, Instant nextAt, String state,
      int lastStatus, String lastError, Instant createdAt, Instant deliveredAt) {}

  /** Appends an event and returns its cursor (greater than every earlier one). */
  long appendChange(String type, String repository, String snapshot, Instant time, String json);

  /** Events with a cursor greater than {@code cursor}, oldest first, at most {@code limit}. */
  List<Change> changesAfter(long cursor, int limit);

  /** The newest event's cursor, 0 when there is none. */
  long lastCursor();

  /** Adds a pending delivery unless {@code maxPending} are already pending; false when full. */
  boolean enqueueDelivery(Delivery d, int maxPending);

  /** Pending deliveries due at {@code now}, the oldest due first. */
  List<Delivery> dueDeliveries(Instant now, int limit);

  /** The earliest time a pending delivery is due, or null when none is pending. */
  Instant nextDue();

  /** Records an attempt's outcome. */
  void deliveryAttempted(String id, int attempts, String state, int status, String error, Instant nextAt, Instant deliveredAt);

  /** The latest deliveries, newest first. */
  List<Delivery> recentDeliveries(int limit);

  @Override
  void close();
}
