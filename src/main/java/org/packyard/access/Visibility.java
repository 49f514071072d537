package org.packyard.access;

import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import org.packyard.catalog.Branch;
import org.packyard.config.Access;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;

/**
 * What one caller may see of the server's own state: {@code /metrics}, {@code /readyz}, the home
 * page, any status or count that names repositories. The one place where that rule lives:
 *
 * <ul>
 *   <li>a repository (its name, its series, its readiness) is visible to whoever may read it
 *       ({@link AccessControl#canRead}): public ones to everybody, private ones to their viewers;
 *   <li>a branch is visible when one of its configured channels is;
 *   <li>operator detail (upstream hosts, the directory's URL and last error, the access model's
 *       version) only to an <em>operator</em>: a caller with at least {@code viewer} on {@code /},
 *       who may read every repository anyway (the role to give Prometheus' token);
 *   <li>everything else (aggregate health: queues, flights, bytes) to everybody.
 * </ul>
 *
 * <pre>{@code
 * Visibility.of(access, config, ctx).onSuccess(v -> {
 *   if (v.repository(name)) show(name);
 *   if (v.operator()) show(directoryHealth);
 * });
 * }</pre>
 *
 * For metrics, {@link #label} decides per label of a series; {@code server/PrometheusFilter}
 * applies it to a whole exposition, whoever rendered it.
 */
public final class Visibility {
  /** Labels whose value is a repository name. */
  public static final String REPOSITORY_LABEL = "repository";
  /** Labels whose value is an mdapi branch name. */
  public static final String BRANCH_LABEL = "branch";
  /** Labels whose value is an upstream host: operator detail. */
  public static final String HOST_LABEL = "host";

  private final AccessControl access;
  private final PackyardConfig config;
  private final Subject subject;
  private final boolean operator;

  public Visibility(AccessControl access, PackyardConfig config, Subject subject) {
    this.access = access;
    this.config = config;
    this.subject = subject;
    this.operator = access.grant(subject, Role.VIEWER, "/") != null;
  }

  /** The visibility of the request's caller; invalid credentials fail with 401. */
  public static Future<Visibility> of(AccessControl access, PackyardConfig config, RoutingContext ctx) {
    return access.subject(ctx).map(s -> new Visibility(access, config, s));
  }

  /**
   * {@code branch} (null: no such branch) as the request's caller sees it: its readable channels,
   * or null when it may read none of its configured channels, which the caller must then answer
   * exactly as an unknown branch. Credentials are read only when some channel is private, so
   * invalid ones fail with 401 alike for a private and an unknown branch.
   */
  public static Future<Branch> branch(AccessControl access, RoutingContext ctx, Branch branch) {
    if (branch != null && !branch.empty() && branch.allPublic()) return Future.succeededFuture(branch);
    return access.subject(ctx).map(who -> branch == null ? null : branch.visibleTo(r -> access.canRead(who, r)));
  }

  public Subject subject() {
    return subject;
  }

  /** True for a caller with viewer (or more) on {@code /}: it sees everything, operator detail included. */
  public boolean operator() {
    return operator;
  }

  /** True when the caller may know that {@code r} exists. */
  public boolean repository(RepositoryConfig r) {
    return r.access() == Access.PUBLIC || access.canRead(subject, r);
  }

  /** True when {@code name} is a configured repository the caller may know of. */
  public boolean repository(String name) {
    RepositoryConfig r = config.repository(name);
    return r != null && repository(r);
  }

  /** True when one of the configured channels of branch {@code name} is visible. */
  public boolean branch(String name) {
    for (RepositoryConfig r : config.repositories()) if (name.equals(r.branch()) && repository(r)) return true;
    return false;
  }

  /**
   * True when a metric series carrying label {@code name="value"} may be shown: a repository or
   * branch label needs that repository or branch to be visible, a host label needs an operator,
   * any other label is aggregate and shown. A series is shown when all its labels are.
   */
  public boolean label(String name, String value) {
    if (operator) return true;
    return switch (name) {
      case REPOSITORY_LABEL -> repository(value);
      case BRANCH_LABEL -> branch(value);
      case HOST_LABEL -> false;
      default -> true;
    };
  }
}
