package org.packyard.ui;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import org.packyard.access.AccessRoutes;
import org.packyard.server.ReaderPool;
import org.packyard.server.Services;

/** Login, logout and the pages that change access: bulk bindings, checks, tokens, the audit log. */
final class AccessPages {
  private final Web web;
  private final Services services;
  private final ReaderPool readers;
  private final AccessRoutes api;

  AccessPages(Web web, Services services, ReaderPool readers, AccessRoutes api) {
    this.web = web;
    this.services = services;
    this.readers = readers;
    this.api = api;
  }

  void mount(Router router, BodyHandler form) {
  }
}
