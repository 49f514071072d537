package org.packyard.observe;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.ContextStorageProvider;
import io.opentelemetry.context.Scope;
import io.vertx.core.internal.ContextInternal;
import java.util.concurrent.ConcurrentMap;

/**
 * Where the current OpenTelemetry context lives: on a Vert.x <em>duplicated</em> context (every
 * HTTP request gets its own) in that context's local data, so the request's span follows its
 * callbacks wherever they run; everywhere else (event-loop and worker root contexts, which many
 * tasks share, and plain threads) in a thread local, as OpenTelemetry's default does. Never on a
 * shared root context: one task's span would leak into another's.
 */
public final class RequestContextStorage implements ContextStorageProvider {
  private static final Object KEY = new Object();

  @Override
  public ContextStorage get() {
    return Storage.INSTANCE;
  }

  enum Storage implements ContextStorage {
    INSTANCE;

    @Override
    public Scope attach(Context toAttach) {
      ContextInternal vc = ContextInternal.current();
      if (vc == null || !vc.isDuplicate()) return ContextStorage.defaultStorage().attach(toAttach);
      ConcurrentMap<Object, Object> data = vc.localContextData();
      Object before = data.get(KEY);
      if (before == toAttach) return Scope.noop();
      data.put(KEY, toAttach);
      return () -> {
        if (before == null) data.remove(KEY, toAttach);
        else data.replace(KEY, toAttach, before);
      };
    }

    @Override
    public Context current() {
      ContextInternal vc = ContextInternal.current();
      if (vc != null && vc.isDuplicate() && vc.localContextData().get(KEY) instanceof Context c) return c;
      return ContextStorage.defaultStorage().current();
    }
  }
}
