package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.ProxyOptions;
import io.vertx.core.net.ProxyType;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.packyard.Version;
import org.packyard.config.Redact;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;

/**
 * Makes the {@link Upstream} for a mirror URL, and owns one HTTP client per distinct transfer
 * setup (TLS trust, client certificate, proxy, concurrency cap). Each client's pool holds as many
 * connections per host as the cap, so the limiter, not the pool, decides concurrency, and its wait
 * queue is bounded. Requests carry {@link org.packyard.Version#userAgent()}.
 */
public final class Upstreams implements AutoCloseable {
  /** Connect and idle (no bytes for this long) timeouts of upstream requests. */
  public record Timeouts(Duration connect, Duration idle) {
    public static final Timeouts DEFAULT = new Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(60));

    public Timeouts {
      if (connect == null || connect.isNegative() || connect.isZero()) throw new IllegalArgumentException("connect timeout must be > 0, got: " + connect);
      if (idle == null || idle.isNegative() || idle.isZero()) throw new IllegalArgumentException("idle timeout must be > 0, got: " + idle);
    }
  }

  private record ClientKey(Path caFile, Path clientCert, Path clientKey, URI proxy, int cap) {
    static ClientKey of(Transfer t) {
      return new ClientKey(t.caFile(), t.clientCert(), t.clientKey(), t.proxy(), Upstreams.cap(t));
    }
  }

  private final Vertx vertx;
  private final Timeouts timeouts;
  private final WorkerExecutor io;
  private final org.packyard.observe.Telemetry telemetry;
  private final Map<ClientKey, HttpClient> clients = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicInteger clientCount = new java.util.concurrent.atomic.AtomicInteger();
  /** Mirror URLs with secrets that a list named, by their redacted form; in memory only, bounded. */
  private final Map<String, URI> listedSecrets = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, URI> eldest) {
          return size() > MAX_LISTED_SECRETS;
        }
      });
  static final int MAX_LISTED_SECRETS = 4096;

  public Upstreams(Vertx vertx) {
    this(vertx, Timeouts.DEFAULT);
  }

  public Upstreams(Vertx vertx, Timeouts timeouts) {
    this(vertx, timeouts, org.packyard.observe.Telemetry.off());
  }

  /** Upstreams whose downloads are traced and metered by {@code telemetry}. */
  public Upstreams(Vertx vertx, Timeouts timeouts, org.packyard.observe.Telemetry telemetry) {
    this.vertx = vertx;
    this.timeouts = timeouts;
    this.telemetry = telemetry;
    this.io = vertx.createSharedWorkerExecutor("packyard-download-io", 4);
  }

  /** Where downloads report spans and meters. */
  public org.packyard.observe.Telemetry telemetry() {
    return telemetry;
  }

  /** The most requests a transfer allows one host at once. */
  static int cap(Transfer t) {
    return t.fixed() ? t.fixedConcurrency() : t.maxConcurrency();
  }

  /** The upstream of {@code repo}'s first mirror (or its metalink/mirrorlist URL). */
  public Upstream forRepository(RepositoryConfig repo) {
    return forMirror(repo.upstream().primary(), repo.transfer());
  }

  /** The upstream at mirror base URL {@code base}, reached as {@code transfer} says. May read PEM files. */
  public Upstream forMirror(URI base, Transfer transfer) {
    return forMirror(base, transfer, null);
  }

  /**
   * As {@link #forMirror(URI, Transfer)}; an http(s) mirror's connections go to {@code address}
   * when it is not null (an address checked by {@link MirrorAddresses}), whatever DNS says later.
   */
  Upstream forMirror(URI base, Transfer transfer, InetAddress address) {
    return switch (base.getScheme()) {
      case "file" -> new FileUpstream(vertx, base);
      case "http", "https" -> new HttpUpstream(vertx, client(transfer), io, base, timeouts.idle().toMillis(),
          address == null ? null : SocketAddress.inetSocketAddress(new InetSocketAddress(address, port(base))));
      default -> throw new UpstreamException("unsupported upstream scheme: " + base);
    };
  }

  /** Resolves a host name to all its addresses; blocking. */
  @FunctionalInterface
  interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  private volatile Resolver resolver = InetAddress::getAllByName;

  /** Every address of {@code host} (blocking: call off the event loop). */
  InetAddress[] resolve(String host) throws UnknownHostException {
    return resolver.resolve(host);
  }

  /** Resolves names with {@code r} from now on (a test names hosts that no DNS knows). */
  void resolver(Resolver r) {
    this.resolver = r;
  }

  /** A metalink or mirrorlist's bytes, and the address they came from (null: a local file, or read through a proxy). */
  record Document(byte[] bytes, InetAddress from) {}

  /** Reads a metalink or mirrorlist, noting the address of the server that answered. */
  Future<Document> fetchList(URI url, Transfer transfer, long maxBytes, Runnable onResponse) {
    if (url.getScheme().equals("file")) return fetchDocument(url, transfer, maxBytes, onResponse).map(b -> new Document(b, null));
    String u = url.toString();
    return HttpUpstream.get(client(transfer), u, timeouts.idle().toMillis(), onResponse).compose(resp -> {
      InetAddress from = null;
      if (transfer.proxy() == null) {
        SocketAddress remote = resp.request().connection().remoteAddress();
        from = remote == null || remote.hostAddress() == null ? null : literal(remote.hostAddress());
      }
      InetAddress answered = from;
      return HttpUpstream.readBody(resp, u, maxBytes).map(b -> new Document(b, answered));
    });
  }

  private static InetAddress literal(String ip) {
    try {
      return InetAddress.getByName(ip); // a literal address: no lookup
    } catch (UnknownHostException e) {
      return null;
    }
  }

  static int port(URI u) {
    return u.getPort() > 0 ? u.getPort() : u.getScheme().equals("https") ? 443 : 80;
  }

  /** Reads a small document at an absolute URL (a metalink or mirrorlist), query string and all. */
  public Future<byte[]> fetchDocument(URI url, Transfer transfer, long maxBytes, Runnable onResponse) {
    if (url.getScheme().equals("file")) {
      return vertx.executeBlocking(() -> {
        try {
          onResponse.run();
          byte[] b = Files.readAllBytes(Path.of(url));
          if (b.length > maxBytes) throw UpstreamException.corrupt(url + " is larger than " + maxBytes + " bytes");
          return b;
        } catch (NoSuchFileException e) {
          throw new UpstreamException(url + ": no such file", 404, e);
        } catch (java.io.IOException e) {
          throw new UpstreamException(url + ": " + e.getMessage(), 0, e);
        }
      }, false);
    }
    String u = url.toString();
    return HttpUpstream.get(client(transfer), u, timeouts.idle().toMillis(), onResponse)
        .compose(resp -> HttpUpstream.readBody(resp, u, maxBytes));
  }

  /**
   * A GET of an absolute http(s) URL with Packyard's User-Agent. User information in the URL
   * ({@code https://user:password@host/}) is sent as HTTP Basic credentials: the Vert.x client
   * would otherwise drop it silently.
   */
  public static RequestOptions get(String url, long idleTimeoutMs) {
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url).setIdleTimeout(idleTimeoutMs)
        .putHeader(HttpHeaders.USER_AGENT, Version.userAgent());
    String user = URI.create(url).getUserInfo(); // decoded: %40 is '@'
    if (user != null && !user.isEmpty()) {
      o.putHeader(HttpHeaders.AUTHORIZATION,
          "Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
    }
    return o;
  }

  /**
   * Keeps, in this process's memory only, a mirror URL that a metalink or mirrorlist named with a
   * secret in it (user information or a query), so {@link #recall} can give it back for the
   * {@link Redact#url redacted} form a snapshot records. Nothing is written anywhere.
   */
  void remember(URI listed) {
    String redacted = Redact.url(listed);
    if (!redacted.equals(listed.toString())) listedSecrets.put(redacted, listed);
  }

  /**
   * The URL to reach for a mirror a snapshot recorded (redacted): a configured mirror whose
   * redacted form it is, else one a list named in this process, else the recorded URL itself when
   * nothing was redacted from it; null when its secret is known to neither (sync again).
   */
  public URI recall(String recorded, java.util.List<URI> configured) {
    for (URI c : configured) if (Redact.url(c).equals(recorded) || c.toString().equals(recorded)) return c;
    URI listed = listedSecrets.get(recorded);
    if (listed != null) return listed;
    URI u = URI.create(recorded);
    boolean masked = (u.getRawUserInfo() != null || u.getRawQuery() != null) && recorded.contains(Redact.MASK);
    return masked ? null : u; // a snapshot recorded before redaction holds the URL itself
  }

  /** The host key of an absolute URL, as {@link Upstream#host()} spells it. */
  static String hostOf(URI url) {
    if (url.getScheme().equals("file")) return "file";
    int port = url.getPort() > 0 ? url.getPort() : url.getScheme().equals("https") ? 443 : 80;
    return url.getScheme() + "://" + url.getHost() + ":" + port;
  }

  /** The HTTP client for a transfer setup (shared by every repository with the same setup). */
  public HttpClient client(Transfer t) {
    return clients.computeIfAbsent(ClientKey.of(t), this::newClient);
  }

  private HttpClient newClient(ClientKey k) {
    // the metrics name: "upstream", then "upstream-2", ... for each further transfer setup
    int n = clientCount.incrementAndGet();
    HttpClientOptions o = new HttpClientOptions()
        .setMetricsName(n == 1 ? "upstream" : "upstream-" + n)
        .setConnectTimeout((int) timeouts.connect().toMillis())
        .setKeepAlive(true)
        .setKeepAliveTimeout(60)
        .setDecompressionSupported(false)
        .setTrustAll(false)
        .setVerifyHost(true)
        .setTcpNoDelay(true);
    if (k.caFile() != null) {
      requireFile(k.caFile(), "tls_ca_file");
      o.setTrustOptions(new PemTrustOptions().addCertPath(k.caFile().toString()));
    }
    if (k.clientCert() != null) {
      requireFile(k.clientCert(), "tls_client_cert");
      requireFile(k.clientKey(), "tls_client_key");
      o.setKeyCertOptions(new PemKeyCertOptions().setCertPath(k.clientCert().toString()).setKeyPath(k.clientKey().toString()));
    }
    if (k.proxy() != null) {
      ProxyOptions p = new ProxyOptions().setType(ProxyType.HTTP).setHost(k.proxy().getHost())
          .setPort(k.proxy().getPort() > 0 ? k.proxy().getPort() : 80);
      String user = k.proxy().getUserInfo();
      if (user != null) {
        int c = user.indexOf(':');
        p.setUsername(c < 0 ? user : user.substring(0, c));
        if (c >= 0) p.setPassword(user.substring(c + 1));
      }
      o.setProxyOptions(p);
    }
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(k.cap()).setHttp2MaxSize(Math.max(1, k.cap() / 8))
        .setMaxWaitQueueSize(4 * k.cap());
    try {
      return vertx.createHttpClient(o, pool);
    } catch (RuntimeException e) {
      throw new UpstreamException("cannot set up TLS or proxy (" + k + "): " + Syncer.message(e));
    }
  }

  private static void requireFile(Path p, String key) {
    if (!Files.isRegularFile(p)) throw new UpstreamException(key + " is not a readable file: " + p);
  }

  @Override
  public void close() {
    for (HttpClient c : clients.values()) c.close();
    io.close();
  }
}
