// Packyard web application: the few things plain HTML cannot do. Every page works without it.
(function () {
  "use strict";

  // Copy buttons: <button class="copy" data-copy="ID"> copies the value of the field with that id.
  function copy(button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 2000); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () { field.select(); });
    } else {
      field.select();
      done();
    }
  }

  // "Select all in folder": a checkbox with data-folder-all="team/" ticks every target under it.
  function folderToggle(box) {
    var folder = box.getAttribute("data-folder-all");
    document.querySelectorAll('input[name="targets"]').forEach(function (t) {
      if (t.value !== folder && t.value.indexOf(folder) === 0) t.checked = box.checked;
    });
  }

  function bytes(n) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n : n.toFixed(1)) + " " + u[i];
  }

  // Live sync progress: the repository page's event stream (Server-Sent Events).
  function progress(box) {
    var url = box.getAttribute("data-events");
    if (!url || !window.EventSource) return;
    var wasRunning = false;
    var source = new EventSource(url);
    source.onmessage = function (e) {
      var p = JSON.parse(e.data);
      var lines = [];
      if (p.running) {
        wasRunning = true;
        lines.push("Sync running: " + p.phase + (p.detail ? " (" + p.detail + ")" : ""));
        if (p.files_total) lines.push("Metadata files: " + p.files_done + " of " + p.files_total);
        if (p.packages_read) lines.push("Packages read from primary: " + p.packages_read);
        if (p.downloads_total) lines.push("Package files: " + p.downloads_done + " of " + p.downloads_total);
        lines.push("Downloaded: " + bytes(p.bytes) + " at " + bytes(p.bytes_per_second) + "/s; throttled answers: " + p.throttled);
      } else {
        lines.push(wasRunning ? "The sync has finished. Reload the page to see its outcome." : "No sync is running.");
      }
      box.setAttribute("data-running", p.running ? "true" : "false");
      box.replaceChildren.apply(box, lines.map(function (l) { var el = document.createElement("p"); el.textContent = l; return el; }));
    };
    window.addEventListener("pagehide", function () { source.close(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button.copy").forEach(function (b) { b.addEventListener("click", function () { copy(b); }); });
    document.querySelectorAll("input[data-folder-all]").forEach(function (b) { b.addEventListener("change", function () { folderToggle(b); }); });
    var p = document.getElementById("progress");
    if (p) progress(p);
  });
})();
