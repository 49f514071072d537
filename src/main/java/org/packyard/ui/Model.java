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

  record SearchPage(String q, List<SearchRow> rows, String nextHref, String error, List<SearchAdvisoryRow> advisories) {}

  /** An advisory the search text names (its id, or a CVE it references), in the repository that serves it. */
  record SearchAdvisoryRow(String repository, String repoHref, AdvisoryRow advisory) {}

  record SnapshotRow(String id, String createdAt, long packages, boolean current) {}

  record RunRow(String startedAt, String outcome, String took, String snapshot, String message) {}

  /** A package name in a repository's list; {@code files}: its files, shown with delete buttons (editors of a hosted repository). */
  record PkgRow(String name, String href, List<FileRow> files) {}

  /** A package file: its name, and its location (what a delete names). */
  record FileRow(String name, String location) {}

  record RepoPage(RepoRow row, String upstream, String branch, String channel, String repoFile, boolean canSync,
      List<SnapshotRow> snapshots, List<RunRow> runs, String q, List<PkgRow> packages, String prevHref, String nextHref,
      String eventsHref, String syncAction, String notice, boolean hosted, boolean canUpload, String uploadAction,
      String deleteAction, String advisoriesHref) {}

  record Dep(String text) {}

  record DepGroup(String kind, List<String> entries) {}

  record ChangeRow(String date, String author, String text) {}

  record Version(String evr, String arch, String summary, String description, String url, String license,
      String sizePackage, String sizeInstalled, String built, String location, List<DepGroup> deps, List<String> files,
      List<ChangeRow> changelog) {}

  record PackagePage(String repository, String repoHref, String name, List<Version> versions, String install,
      List<AdvisoryRow> advisories) {}

  /** One advisory in a list; {@code severity} as dnf names it. */
  record AdvisoryRow(String id, String href, String type, String severity, String title, String issued, String cves) {}

  record AdvisoriesPage(String repository, String repoHref, String action, String type, String severity, String cve,
      List<AdvisoryRow> rows, String prevHref, String nextHref, String error) {}

  record RefRow(String type, String id, String href, String title) {}

  record AdvisoryPkgRow(String nevra, String filename, String href) {}

  record AdvisoryPage(String repository, String repoHref, String listHref, String id, String type, String severity, String status,
      String title, String issued, String updated, String release, boolean rebootSuggested, String description, String solution,
      List<RefRow> references, List<AdvisoryPkgRow> packages) {}

  record Message(String heading, String text) {}

  record LoginPage(String error) {}

  /** A checkbox of the access page: a repository or a folder ({@code folder}: it has "select all"). */
  record TargetRow(String id, String value, int depth, boolean folder, boolean checked) {}

  record BindingRow(String principal, String role, String target, boolean inherited, String createdAt, String createdBy) {}

  /** The bindings that apply to one target; {@code hidden}: the caller does not own it, so they are not shown. */
  record TargetBindings(String target, boolean hidden, List<BindingRow> rows) {}

  record AccessPage(String principal, String role, List<TargetRow> targets, List<String> suggestions, String notice,
      List<String> notOwned, List<TargetBindings> bindings) {}

  record CheckPage(String principal, String role, String target, Boolean granted, String via, String error) {}

  record TokenRow(String id, String name, String created, String expires, String state, boolean current) {}

  record TokensPage(List<TokenRow> tokens, String newSecret, String newName, String notice) {}

  record AuditRow(String at, String actor, String action, String principal, String role, String target, String detail) {}

  record AuditPage(String q, int limit, List<AuditRow> rows) {}
}
