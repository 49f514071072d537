package org.packyard.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where the shared state (sync runs and leases, published-snapshot pointers, users, tokens,
 * bindings, audit) lives: the embedded SQLite file {@code data/state.db} (the default), or a
 * PostgreSQL database that several replicas share, {@code postgresql://user@host:port/db} with
 * optional {@code ?key=value} connection parameters. The password never goes in the URL (it would
 * end up in logs and process listings): it comes from {@code PGPASSWORD} or {@code password_file}.
 * {@link #toString} and {@link #describe} never show it.
 */
public record StateConfig(String host, int port, String database, String user, String params, Path passwordFile,
    Secret password, int maxConnections) {
  /** The embedded default: SQLite in the data directory. */
  public static final StateConfig SQLITE = new StateConfig(null, 0, null, null, null, null, null, 0);
  public static final int DEFAULT_MAX_CONNECTIONS = 8;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.$-]{0,62}");
  private static final Pattern PARAMS = Pattern.compile("[A-Za-z][A-Za-z0-9_]*=[^&=\\s]*(&[A-Za-z][A-Za-z0-9_]*=[^&=\\s]*)*");

  public StateConfig {
    if (host != null) {
      if (port < 1 || port > 65535) throw new ConfigException("state port must be 1-65535, got: " + port);
      if (database == null || !NAME.matcher(database).matches()) {
        throw new ConfigException("state needs a database name like postgresql://user@host:5432/packyard, got: " + database);
      }
      if (user == null || !NAME.matcher(user).matches()) throw new ConfigException("state user must be a plain name, got: " + user);
      if (params != null && !PARAMS.matcher(params).matches()) {
        throw new ConfigException("state connection parameters must be key=value pairs joined by '&', got: " + params);
      }
      if (params != null && params.toLowerCase(java.util.Locale.ROOT).matches("(.*&)?password=.*")) {
        throw new ConfigException("state: put the password in PGPASSWORD or password_file, not in the URL");
      }
      if (maxConnections < 1 || maxConnections > 256) {
        throw new ConfigException("state max_connections must be 1-256, got: " + maxConnections);
      }
    }
  }

  /** True for the embedded SQLite store. */
  public boolean embedded() {
    return host == null;
  }

  /**
   * Reads {@code state: URL}: {@code sqlite} (or nothing) for the embedded store, else
   * {@code postgresql://user@host[:port]/db[?params]}.
   */
  public static StateConfig parse(String where, String url, Path passwordFile, Secret password) {
    return parse(where, url, passwordFile, password, DEFAULT_MAX_CONNECTIONS);
  }

  public static StateConfig parse(String where, String url, Path passwordFile, Secret password, int maxConnections) {
    if (url == null || url.isBlank() || url.trim().equals("sqlite")) {
      if (passwordFile != null) throw new ConfigException(where + ": password_file needs a postgresql:// state URL");
      return SQLITE;
    }
    URI u;
    try {
      u = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(where + ": not a valid URL; expected sqlite or postgresql://user@host:5432/db");
    }
    String scheme = u.getScheme();
    if (scheme == null || !(scheme.equals("postgresql") || scheme.equals("postgres"))) {
      throw new ConfigException(where + ": expected sqlite or postgresql://user@host:5432/db, got scheme: " + scheme);
    }
    String info = u.getRawUserInfo();
    if (info != null && info.contains(":")) {
      // The message must not echo the URL: it holds the password.
      throw new ConfigException(where + ": the URL contains a password; put it in PGPASSWORD or password_file instead");
    }
    if (u.getHost() == null) throw new ConfigException(where + ": the URL names no host, expected postgresql://user@host:5432/db");
    String path = u.getPath() == null ? "" : u.getPath();
    String db = path.startsWith("/") ? path.substring(1) : path;
    try {
      return new StateConfig(u.getHost(), u.getPort() < 0 ? 5432 : u.getPort(), db.isEmpty() ? null : db,
          info == null ? "packyard" : info, u.getRawQuery(), passwordFile, password, maxConnections);
    } catch (ConfigException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  /** The database without secrets, for logs and {@code /readyz}: {@code postgresql://user@host:port/db} or {@code sqlite}. */
  public String describe() {
    return embedded() ? "sqlite" : "postgresql://" + user + "@" + hostPort() + "/" + database;
  }

  /** The JDBC URL (no credentials in it). */
  public String jdbcUrl() {
    if (embedded()) throw new IllegalStateException("the embedded store has no PostgreSQL URL");
    return "jdbc:postgresql://" + hostPort() + "/" + database + (params == null ? "" : "?" + params);
  }

  private String hostPort() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  @Override
  public String toString() {
    return describe();
  }
}
