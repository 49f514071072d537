package org.packyard.access;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Set;

/** The directory's last answer per user, least recently used evicted beyond a size; not thread-safe. */
final class UserCache {
  /** The groups the directory gave for a user, and when that request was sent. */
  record Entry(Set<String> groups, Instant fetched) {
    Entry {
      groups = Set.copyOf(groups);
      if (fetched == null) throw new IllegalArgumentException("fetched is null");
    }
  }

  private final LinkedHashMap<String, Entry> map;

  UserCache(int maxUsers) {
    if (maxUsers < 1) throw new IllegalArgumentException("maxUsers < 1: " + maxUsers);
    this.map = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(java.util.Map.Entry<String, UserCache.Entry> eldest) {
        return size() > maxUsers;
      }
    };
  }

  /** The entry of {@code user}, marking it recently used; null when none. */
  Entry get(String user) {
    return map.get(user);
  }

  void put(String user, Entry e) {
    map.put(user, e);
  }

  void remove(String user) {
    map.remove(user);
  }

  int size() {
    return map.size();
  }

  /** Every group some cached answer named. */
  Set<String> groups() {
    Set<String> out = new java.util.TreeSet<>();
    for (Entry e : map.values()) out.addAll(e.groups());
    return out;
  }
}
