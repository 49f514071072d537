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

  // The upload form of a hosted repository: each file PUT as it is (the browser streams it from
  // disk), three at a time, with its own progress bar and the server's answer.
  function uploader(box) {
    var action = box.getAttribute("data-action"), csrf = box.getAttribute("data-csrf");
    var input = document.getElementById("upload-files"), zone = document.getElementById("dropzone");
    var results = document.getElementById("upload-results"), done = document.getElementById("upload-done");
    var queue = [], running = 0, published = 0;
    box.hidden = false;

    function line(file) {
      var li = document.createElement("li"), name = document.createElement("code");
      var bar = document.createElement("progress"), text = document.createElement("span");
      name.textContent = file.name;
      bar.max = file.size || 1;
      bar.value = 0;
      bar.setAttribute("aria-label", "Upload of " + file.name);
      text.className = "outcome";
      text.textContent = "waiting";
      li.append(name, " ", bar, " ", text);
      results.appendChild(li);
      return { li: li, bar: bar, text: text };
    }

    function answer(xhr) {
      var body = null;
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
      if (xhr.status === 201) return ["published", "published as " + (body && body.location) + " (snapshot " + (body && body.snapshot) + ")"];
      if (xhr.status === 200) return ["unchanged", "already there (the same bytes)"];
      var reason = body && body.error && body.error.message ? body.error.message : "HTTP " + xhr.status;
      if (xhr.status === 0) reason = "the connection failed";
      return ["failed", "failed (" + xhr.status + "): " + reason];
    }

    function next() {
      while (running < 3 && queue.length > 0) start(queue.shift());
      if (running === 0 && queue.length === 0 && published > 0) done.hidden = false;
    }

    function start(job) {
      running++;
      job.ui.text.textContent = "uploading";
      var xhr = new XMLHttpRequest();
      xhr.open("PUT", action + encodeURIComponent(job.file.name));
      xhr.setRequestHeader("X-CSRF-Token", csrf);
      xhr.setRequestHeader("Content-Type", "application/x-rpm");
      xhr.upload.onprogress = function (e) { if (e.lengthComputable) { job.ui.bar.max = e.total; job.ui.bar.value = e.loaded; } };
      xhr.upload.onload = function () { job.ui.text.textContent = "publishing"; };
      xhr.onloadend = function () {
        var a = answer(xhr);
        if (a[0] === "published") published++;
        if (a[0] !== "failed") job.ui.bar.value = job.ui.bar.max;
        job.ui.li.className = "state " + a[0];
        job.ui.text.textContent = a[1];
        running--;
        next();
      };
      xhr.send(job.file);
    }

    function add(files) {
      for (var i = 0; i < files.length; i++) queue.push({ file: files[i], ui: line(files[i]) });
      next();
    }

    input.addEventListener("change", function () { add(input.files); input.value = ""; });
    zone.addEventListener("dragover", function (e) { e.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
    zone.addEventListener("drop", function (e) {
      e.preventDefault();
      zone.classList.remove("over");
      if (e.dataTransfer && e.dataTransfer.files) add(e.dataTransfer.files);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    // Forms with data-confirm (deleting a package) ask first.
    document.querySelectorAll("form[data-confirm]").forEach(function (f) {
      f.addEventListener("submit", function (e) { if (!window.confirm(f.getAttribute("data-confirm"))) e.preventDefault(); });
    });
    var u = document.getElementById("uploader");
    if (u) uploader(u);
    document.querySelectorAll("button.copy").forEach(function (b) { b.addEventListener("click", function () { copy(b); }); });
    document.querySelectorAll("input[data-folder-all]").forEach(function (b) { b.addEventListener("change", function () { folderToggle(b); }); });
    var p = document.getElementById("progress");
    if (p) progress(p);
  });
})();
