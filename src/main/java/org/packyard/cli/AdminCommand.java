package org.packyard.cli;

import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.packyard.access.AccessData;
import org.packyard.access.AccessStore;
import org.packyard.gc.BlobCollector;
import org.packyard.store.BlobStore;
import org.packyard.store.BlobStores;
import org.packyard.store.SnapshotStore;
import org.packyard.store.StateDatabase;
import org.packyard.store.StateUnavailableException;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.access.Target;
import org.packyard.config.ConfigException;
import org.packyard.config.Durations;
import org.packyard.config.PackyardConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ./packyard admin}: users, tokens, groups and bindings for the local administrator,
 * working on the state store directly (a running server picks the change up within seconds).
 */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    description = "Manage users, tokens, groups and bindings in the state store (data/state.db, or the configured PostgreSQL).",
    subcommands = {
      AdminCommand.Bootstrap.class,
      AdminCommand.User.class,
      AdminCommand.Token.class,
      AdminCommand.Group.class,
      AdminCommand.Bind.class,
      AdminCommand.Unbind.class,
      AdminCommand.Show.class,
      AdminCommand.Gc.class
    },
    footer = {
      "",
      "Examples:",
      "  ./packyard admin --config packyard.yaml bootstrap alice        first owner, prints a token",
      "  ./packyard admin --config packyard.yaml user add bob",
      "  ./packyard admin --config packyard.yaml token create bob --expires 90d",
      "  ./packyard admin --config packyard.yaml group add support",
      "  ./packyard admin --config packyard.yaml group members support --add bob",
      "  ./packyard admin --config packyard.yaml bind group:support viewer fedora/ epel/9/x86_64",
      "  ./packyard admin --config packyard.yaml token revoke 3f2a9c01d4e5"
    })
final class AdminCommand implements Callable<Integer> {
  @Mixin ConfigOptions options;

  @Override
  public Integer call() {
    System.err.println("packyard admin: name a subcommand (bootstrap, user, token, group, bind, unbind, show, gc); see --help");
    return 2;
  }

  /** Runs {@code body} against the store, turning refusals into messages and exit code 2. */
  int withStore(StoreAction body) {
    PackyardConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      System.err.println("packyard: " + e.getMessage());
      return 2;
    }
    try {
      Files.createDirectories(config.data());
    } catch (java.io.IOException e) {
      System.err.println("packyard: cannot create data directory " + config.data() + ": " + e.getMessage());
      return 1;
    }
    try (StateDatabase db = StateDatabase.open(config.state(), config.data(), Clock.systemUTC())) {
      body.run(db.access(), "cli:" + System.getProperty("user.name", "admin"));
      return 0;
    } catch (IllegalArgumentException e) {
      System.err.println("packyard admin: " + e.getMessage());
      return 2;
    } catch (StateUnavailableException e) {
      System.err.println("packyard admin: " + e.getMessage());
      return 1;
    }
  }

  @FunctionalInterface
  interface StoreAction {
    void run(AccessStore store, String actor);
  }

  static Instant expiry(String raw) {
    if (raw == null) return null;
    Duration d = Durations.parse("--expires", raw);
    return Instant.now().plus(d);
  }

  @Command(name = "bootstrap", mixinStandardHelpOptions = true,
      description = "Create the first owner: a user with the owner role on / (every repository) and a token.")
  static final class Bootstrap implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Parameters(paramLabel = "USER") String user;
    @Option(names = "--expires", paramLabel = "DURATION", description = "Token lifetime, e.g. 90d (default: none).") String expires;

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        AccessData d = store.load();
        boolean ownerExists = d.bindings().stream().anyMatch(b -> b.role() == Role.OWNER && b.target().equals("/"));
        if (ownerExists) throw new IllegalArgumentException("an owner of / exists already; use 'admin bind' to add more");
        if (!d.users().contains(user)) store.addUser(actor, user);
        store.bind(actor, Principal.user(user), Role.OWNER, List.of("/"));
        AccessStore.NewToken t = store.createToken(actor, user, "bootstrap", expiry(expires));
        printToken(user, t);
      });
    }
  }

  static void printToken(String user, AccessStore.NewToken t) {
    System.out.println("token " + t.id() + " for " + user + " (shown once, store it now):");
    System.out.println(t.secret());
    System.out.println();
    System.out.println("dnf:  username=" + user + "  password=" + t.secret());
    System.out.println("API:  Authorization: Bearer " + t.secret());
  }

  @Command(name = "user", mixinStandardHelpOptions = true, description = "add, remove or list users.")
  static final class User implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Parameters(index = "0", paramLabel = "add|remove|list") String action;
    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME") String name;

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        switch (action) {
          case "add" -> {
            store.addUser(actor, required(name, "user name"));
            System.out.println("user " + name + " added");
          }
          case "remove" -> {
            store.removeUser(actor, required(name, "user name"));
            System.out.println("user " + name + " removed");
          }
          case "list" -> store.load().users().stream().sorted().forEach(System.out::println);
          default -> throw new IllegalArgumentException("user takes add, remove or list, got: " + action);
        }
      });
    }
  }

  @Command(name = "token", mixinStandardHelpOptions = true, description = "create, revoke or list API tokens.")
  static final class Token implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Parameters(index = "0", paramLabel = "create|revoke|list") String action;
    @Parameters(index = "1", arity = "0..1", paramLabel = "USER|ID") String arg;
    @Option(names = "--name", description = "A label for the token.") String label;
    @Option(names = "--expires", paramLabel = "DURATION", description = "Lifetime, e.g. 30d, 12h (default: none).") String expires;

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        switch (action) {
          case "create" -> printToken(arg, store.createToken(actor, required(arg, "user name"), label, expiry(expires)));
          case "revoke" -> {
            if (!store.revokeToken(actor, required(arg, "token id"))) throw new IllegalArgumentException("no active token with id " + arg);
            System.out.println("revoked token " + arg);
          }
          case "list" -> {
            for (AccessData.TokenRecord t : store.load().tokens()) {
              if (arg != null && !arg.equals(t.user())) continue;
              System.out.println(t.id() + "  " + t.user() + "  " + (t.name() == null ? "-" : t.name()) + "  created " + t.createdAt()
                  + (t.expiresAt() == null ? "" : "  expires " + t.expiresAt()) + (t.revokedAt() == null ? "" : "  REVOKED " + t.revokedAt()));
            }
          }
          default -> throw new IllegalArgumentException("token takes create, revoke or list, got: " + action);
        }
      });
    }
  }

  @Command(name = "group", mixinStandardHelpOptions = true, description = "add, remove or list groups, or change their members.")
  static final class Group implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Parameters(index = "0", paramLabel = "add|remove|list|members") String action;
    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME") String name;
    @Option(names = "--add", split = ",", paramLabel = "USER") List<String> add = new ArrayList<>();
    @Option(names = "--remove", split = ",", paramLabel = "USER") List<String> remove = new ArrayList<>();

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        switch (action) {
          case "add" -> store.addGroup(actor, required(name, "group name"));
          case "remove" -> store.removeGroup(actor, required(name, "group name"));
          case "list" -> new TreeMap<>(store.load().groupMembers()).forEach((g, m) ->
              System.out.println(g + ": " + String.join(", ", m.stream().sorted().toList())));
          case "members" -> {
            String g = required(name, "group name");
            for (String u : add) store.addMember(actor, g, u);
            for (String u : remove) store.removeMember(actor, g, u);
            Set<String> m = store.load().groupMembers().get(g);
            if (m == null) throw new IllegalArgumentException("no group named " + g);
            System.out.println(g + ": " + String.join(", ", m.stream().sorted().toList()));
          }
          default -> throw new IllegalArgumentException("group takes add, remove, list or members, got: " + action);
        }
      });
    }
  }

  @Command(name = "bind", mixinStandardHelpOptions = true, description = "Give PRINCIPAL the ROLE on each TARGET (all or none).")
  static final class Bind implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Parameters(index = "0", paramLabel = "PRINCIPAL", description = "user:NAME or group:NAME") String principal;
    @Parameters(index = "1", paramLabel = "ROLE", description = "viewer, editor or owner") String role;
    @Parameters(index = "2..*", arity = "1..*", paramLabel = "TARGET", description = "repository name, folder/ or /") List<String> targets;

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        int n = store.bind(actor, Principal.parse(principal), Role.parse(role), checked(targets));
        System.out.println(n + " binding(s) created");
      });
    }
  }

  @Command(name = "unbind", mixinStandardHelpOptions = true, description = "Remove PRINCIPAL's ROLE on each TARGET.")
  static final class Unbind implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
    @Parameters(index = "0", paramLabel = "PRINCIPAL") String principal;
    @Parameters(index = "1", paramLabel = "ROLE") String role;
    @Parameters(index = "2..*", arity = "1..*", paramLabel = "TARGET") List<String> targets;

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        int n = store.unbind(actor, Principal.parse(principal), Role.parse(role), checked(targets));
        System.out.println(n + " binding(s) removed");
      });
    }
  }

  @Command(name = "gc", mixinStandardHelpOptions = true,
      description = "Delete the blobs no retained snapshot references and older than blobs.gc_grace, now (a running server"
          + " does it every blobs.gc_every). Exit 1 when the run was skipped (another process collecting, a snapshot not installed yet).")
  static final class Gc implements Callable<Integer> {
    @ParentCommand AdminCommand admin;

    @Override
    public Integer call() {
      PackyardConfig config;
      try {
        config = admin.options.load();
      } catch (ConfigException e) {
        System.err.println("packyard: " + e.getMessage());
        return 2;
      }
      Clock clock = Clock.systemUTC();
      String holder = "cli:" + System.getProperty("user.name", "admin") + "/" + ProcessHandle.current().pid();
      try (StateDatabase db = StateDatabase.open(config.state(), config.data(), clock);
          BlobStore blobs = BlobStores.open(config, clock);
          SnapshotStore snapshots = new SnapshotStore(config.data(), 1, clock)) {
        BlobCollector.Result r = new BlobCollector(blobs, snapshots, db.state(), holder, config.blobs().gcGrace(), clock).collect();
        (r.ran() ? System.out : System.err).println(r.line());
        return r.ran() ? 0 : 1;
      } catch (java.io.IOException | RuntimeException e) {
        System.err.println("packyard admin gc: " + e.getMessage());
        return 1;
      }
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "List every binding.")
  static final class Show implements Callable<Integer> {
    @ParentCommand AdminCommand admin;

    @Override
    public Integer call() {
      return admin.withStore((store, actor) -> {
        Map<String, List<String>> byTarget = new TreeMap<>();
        store.load().bindings().forEach(b -> byTarget.computeIfAbsent(b.target(), t -> new ArrayList<>()).add(b.principal() + " " + b.role().key()));
        byTarget.forEach((t, l) -> System.out.println(t + "  " + String.join(", ", l)));
      });
    }
  }

  static List<String> checked(List<String> targets) {
    for (String t : targets) Target.check(t);
    return targets;
  }

  static String required(String v, String what) {
    if (v == null || v.isBlank()) throw new IllegalArgumentException(what + " is required");
    return v;
  }
}
