package org.packyard.ui;

import java.util.List;

/** What the templates show: plain values, already decided by the handlers (templates only lay out and escape). */
final class Model {
  private Model() {}

  /** The frame of every page: its title, who is logged in (null: nobody), the form token, the active tab. */
  record Chrome(String title, String user, String csrf, String active) {
    boolean loggedIn() {
      return user != null;
    }
  }

  record LastRun(String outcome, String when, String took, String message) {}

  record RepoRow(String name, String href, String policy, String access, Long packages, String snapshot, String publishedAt,
      LastRun last) {}

  record Home(List<RepoRow> repos) {}

  record SearchRow(String repository, String name, String match, String evr, String arch, String summary, String href) {}

  record SearchPage(String q, List<SearchRow> rows, String nextHref, String error) {}

  record SnapshotRow(String id, String createdAt, long packages, boolean current) {}

  record RunRow(String startedAt, String outcome, String took, String snapshot, String message) {}

  record PkgRow(String name, String href) {}

  record RepoPage(RepoRow row, String upstream, String branch, String channel, String repoFile, boolean canSync,
      List<SnapshotRow> snapshots, List<RunRow> runs, String q, List<PkgRow> packages, String prevHref, String nextHref,
      String eventsHref, String syncAction, String notice) {}

  record Dep(String text) {}

  record DepGroup(String kind, List<String> entries) {}

  record ChangeRow(String date, String author, String text) {}

  record Version(String evr, String arch, String summary, String description, String url, String license,
      String sizePackage, String sizeInstalled, String built, String location, List<DepGroup> deps, List<String> files,
      List<ChangeRow> changelog) {}

  record PackagePage(String repository, String repoHref, String name, List<Version> versions, String install) {}

  record Message(String heading, String text) {}
}
