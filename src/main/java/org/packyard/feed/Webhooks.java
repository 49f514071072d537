package org.packyard.feed;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.logging.Logger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.packyard.Version;
import org.packyard.config.ObserveConfig.Webhook;
import org.packyard.config.Redact;
import org.packyard.observe.Propagation;
import org.packyard.observe.Telemetry;
import org.packyard.store.FeedStore;
import org.packyard.store.FeedStore.Delivery;

/**
 * Delivers events to the configured webhooks, at least once: each event becomes one delivery per
 * webhook that asks for its type, stored in the state store before anything is sent, so a restart
 * loses none. A delivery is a {@code POST} of the event JSON with {@code X-Packyard-Event},
 * {@code X-Packyard-Delivery} (its id, the same on every attempt: receivers deduplicate by it) and
 * {@code X-Packyard-Signature: sha256=<hex HMAC-SHA256 of the raw body with the webhook's
 * secret>}. A 2xx answer delivers it; anything else is retried after an exponential backoff with
 * jitter ({@link Options#base} doubling to {@link Options#max}), and given up after
 * {@link Options#maxAttempts}. At most {@link Options#maxPending} deliveries wait; beyond that new
 * ones are refused and logged. At most {@link Options#concurrency} are in flight.
 *
 * <pre>{@code
 * Webhooks hooks = new Webhooks(vertx, store, config.observe().webhooks(), clock, telemetry, Webhooks.Options.DEFAULT);
 * hooks.start();                                 // polls for due deliveries
 * hooks.enqueue("snapshot.published", json);     // blocking: stores the deliveries
 * }</pre>
 */
public final class Webhooks implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Webhooks.class.getName());
  static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");

  /** Limits and timing. {@code jitter} gives a factor in [0.5, 1) of the backoff by default. */
  public record Options(int maxPending, int concurrency, Duration base, Duration max, int maxAttempts, Duration poll,
      Duration timeout, DoubleSupplier jitter) {
    public static final Options DEFAULT = new Options(10_000, 4, Duration.ofSeconds(1), Duration.ofHours(1), 20,
        Duration.ofSeconds(1), Duration.ofSeconds(10), () -> 0.5 + ThreadLocalRandom.current().nextDouble() / 2);

    public Options {
      if (maxPending < 1 || concurrency < 1 || maxAttempts < 1) {
        throw new IllegalArgumentException("maxPending, concurrency and maxAttempts must be >= 1");
      }
    }

    public Options withPoll(Duration p) {
      return new Options(maxPending, concurrency, base, max, maxAttempts, p, timeout, jitter);
    }
  }

  private final Vertx vertx;
  private final FeedStore store;
  private final Map<String, Webhook> hooks = new LinkedHashMap<>();
  private final Clock clock;
  private final Telemetry telemetry;
  private final Options options;
  private final HttpClient client;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean polling = new AtomicBoolean();
  private long timer = -1;

  public Webhooks(Vertx vertx, FeedStore store, List<Webhook> webhooks, Clock clock, Telemetry telemetry, Options options) {
    this.vertx = vertx;
    this.store = store;
    for (Webhook w : webhooks) hooks.put(w.describe(), w);
    this.clock = clock;
    this.telemetry = telemetry;
    this.options = options;
    this.client = vertx.createHttpClient(new HttpClientOptions().setMetricsName("webhooks").setConnectTimeout((int) options.timeout().toMillis())
        .setIdleTimeout((int) options.timeout().toSeconds()), new PoolOptions().setHttp1MaxSize(options.concurrency())
        .setMaxWaitQueueSize(options.concurrency()));
  }

  /** Stores one pending delivery of {@code body} per webhook that asks for {@code event}. Blocking. */
  public void enqueue(String event, String body) {
    Instant now = clock.instant();
    for (Webhook w : hooks.values()) {
      if (!w.events().contains(event)) continue;
      Delivery d = new Delivery(UUID.randomUUID().toString(), w.describe(), event, body, 0, now, "pending", 0, null, now, null);
      if (!store.enqueueDelivery(d, options.maxPending())) {
        LOG.warning("webhook " + w.describe() + ": " + options.maxPending() + " deliveries already wait; " + event + " not queued");
      }
    }
    if (!hooks.isEmpty()) vertx.runOnContext(v -> tick());
  }

  /** Polls for due deliveries every {@link Options#poll}. */
  public void start() {
    if (hooks.isEmpty()) return;
    timer = vertx.setPeriodic(options.poll().toMillis(), t -> tick());
    tick();
  }

  /** Sends the deliveries due now (as many as the concurrency allows); completes when their attempts did. */
  public Future<Void> tick() {
    int room = options.concurrency() - inFlight.size();
    if (room <= 0 || !polling.compareAndSet(false, true)) return Future.succeededFuture();
    return vertx.executeBlocking(() -> store.dueDeliveries(clock.instant(), options.concurrency() + inFlight.size()), false)
        .compose(due -> {
          polling.set(false);
          List<Future<Void>> sends = new java.util.ArrayList<>();
          int n = 0;
          for (Delivery d : due) {
            if (n >= room) break;
            if (!inFlight.add(d.id())) continue;
            n++;
            sends.add(attempt(d).onComplete(ar -> inFlight.remove(d.id())));
          }
          return Future.join(sends).mapEmpty();
        }, e -> {
          polling.set(false);
          LOG.fine("webhook poll failed: " + e.getMessage());
          return Future.succeededFuture();
        });
  }

  private Future<Void> attempt(Delivery d) {
    Webhook w = hooks.get(d.webhook());
    if (w == null) {
      return record(d, "failed", 0, "webhook no longer configured", false);
    }
    Buffer body = Buffer.buffer(d.body());
    Span span = telemetry.tracing() ? telemetry.tracer().spanBuilder("POST").setSpanKind(SpanKind.CLIENT)
        .setAttribute("http.request.method", "POST").setAttribute(URL, Redact.url(w.url()))
        .setAttribute("server.address", w.url().getHost()).setAttribute("packyard.webhook.event", d.event())
        .startSpan() : Span.getInvalid();
    RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(w.url().toString())
        .setTimeout(options.timeout().toMillis())
        .putHeader("Content-Type", "application/json")
        .putHeader("User-Agent", Version.userAgent())
        .putHeader("X-Packyard-Event", d.event())
        .putHeader("X-Packyard-Delivery", d.id())
        .putHeader("X-Packyard-Signature", "sha256=" + sign(w.secret(), body.getBytes()));
    Future<io.vertx.core.http.HttpClientResponse> sent;
    try (Scope s = span.makeCurrent()) {
      Propagation.inject(opts);
      sent = client.request(opts).compose(req -> req.send(body));
    }
    return sent.compose(resp -> resp.body().map(b -> resp.statusCode()))
        .transform(ar -> {
          int status = ar.succeeded() ? ar.result() : 0;
          if (status > 0) span.setAttribute(STATUS, (long) status);
          span.end();
          if (status >= 200 && status < 300) return record(d, "delivered", status, null, true);
          String error = ar.succeeded() ? "HTTP " + status : Redact.text(String.valueOf(ar.cause().getMessage()));
          return record(d, "pending", status, error, false);
        });
  }

  private Future<Void> record(Delivery d, String state, int status, String error, boolean ok) {
    int attempts = d.attempts() + 1;
    Instant now = clock.instant();
    String s = state;
    Instant next = now;
    if (s.equals("pending")) {
      if (attempts >= options.maxAttempts()) {
        s = "failed";
        LOG.warning("webhook " + d.webhook() + ": delivery " + d.id() + " given up after " + attempts + " attempts: " + error);
      } else {
        next = now.plus(backoff(attempts));
      }
    }
    String finalState = s;
    Instant finalNext = next;
    return vertx.executeBlocking(() -> {
      store.deliveryAttempted(d.id(), attempts, finalState, status, error, finalNext, ok ? now : null);
      return null;
    }, false).mapEmpty();
  }

  /** base * 2^(attempts-1), capped at max, times the jitter factor. */
  Duration backoff(int attempts) {
    long ms = options.base().toMillis();
    for (int i = 1; i < attempts && ms < options.max().toMillis(); i++) ms *= 2;
    ms = Math.min(ms, options.max().toMillis());
    return Duration.ofMillis(Math.max(1, (long) (ms * options.jitter().getAsDouble())));
  }

  /** Lower-case hex HMAC-SHA256 of {@code body} with {@code secret}. */
  public static String sign(String secret, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 unavailable: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (timer >= 0) vertx.cancelTimer(timer);
    client.close();
  }
}
