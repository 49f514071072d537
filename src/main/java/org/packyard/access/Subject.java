package org.packyard.access;

import java.util.Set;

/**
 * Who is asking: anonymous, or a user with the principals it acts as (itself and its groups,
 * Packyard's and the directory's).
 */
public record Subject(String user, Set<Principal> principals, Directory.Source groupsSource) {
  public static final Subject ANONYMOUS = new Subject(null, Set.of(), Directory.Source.NONE);

  public boolean anonymous() {
    return user == null;
  }
}
