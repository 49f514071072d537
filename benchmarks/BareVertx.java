// The floor for benchmarks/profile.sh: a bare Vert.x 5 HTTP server with Packyard's options (native
// epoll, one server per core, TCP_NODELAY, no compression) answering the same bytes with the same
// headers, and nothing else: no router, no lookups, no access checks, no metrics. What Packyard
// costs above this (allocations, CPU samples per request) is Packyard's own.
//   GET /f75/pkg/{name}  the file WWW/f75/pkg/{name}, held in memory (nginx's /pkg files)
//   GET /repos/{path}    WWW/repos/{path}: held in memory up to 64 KiB, sendFile above
// Run: java -cp target/packyard.jar benchmarks/BareVertx.java PORT WWW
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class BareVertx {
  static final Map<String, Buffer> SMALL = new ConcurrentHashMap<>();

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Path www = Path.of(args[1]);
    try (var files = Files.walk(www, java.nio.file.FileVisitOption.FOLLOW_LINKS)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(p) && Files.size(p) <= 64 * 1024) {
          SMALL.put("/" + www.relativize(p), Buffer.buffer(Files.readAllBytes(p)));
        }
      }
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    System.err.println("native transport: " + vertx.isNativeTransportEnabled() + ", files in memory: " + SMALL.size());
    int cores = Runtime.getRuntime().availableProcessors();
    vertx.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        HttpServerOptions opts = new HttpServerOptions().setHost("127.0.0.1").setPort(port).setTcpNoDelay(true)
            .setCompressionSupported(false).setIdleTimeout(120).setHttp2ClearTextEnabled(false);
        return vertx.createHttpServer(opts).requestHandler(req -> {
          String path = req.path();
          HttpServerResponse r = req.response();
          Buffer b = SMALL.get(path);
          if (path.startsWith("/f75/pkg/") && b != null) {
            r.putHeader(HttpHeaders.CONTENT_TYPE, "application/json; charset=utf-8")
                .putHeader("Access-Control-Allow-Origin", "*").putHeader("Access-Control-Allow-Methods", "GET").end(b);
          } else if (path.startsWith("/repos/")) {
            r.putHeader(HttpHeaders.CACHE_CONTROL, "public, max-age=60");
            if (b != null) r.end(b);
            else if (Files.isRegularFile(www.resolve(path.substring(1)))) r.sendFile(www.resolve(path.substring(1)).toString());
            else r.setStatusCode(404).end();
          } else {
            r.setStatusCode(404).end();
          }
        }).listen();
      }
    }, new DeploymentOptions().setInstances(cores)).await();
    System.err.println("listening on " + port);
  }
}
