package org.packyard.access;

import java.util.Locale;

/** What a binding allows on its target; each role includes the ones before it. */
public enum Role {
  /** Read content and metadata. */
  VIEWER,
  /** Viewer, and trigger a sync or change repository settings. */
  EDITOR,
  /** Editor, and manage the bindings on the target. */
  OWNER;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** True when this role includes {@code other}. */
  public boolean includes(Role other) {
    return compareTo(other) >= 0;
  }

  public static Role parse(String raw) {
    for (Role r : values()) if (r.key().equals(raw)) return r;
    throw new IllegalArgumentException("role must be viewer, editor or owner, got: " + raw);
  }
}
