import { type ComponentType, lazy } from 'react';

/** A component loaded when first shown, like React.lazy, that can also be loaded ahead of time. */
export type Preloadable = ComponentType & { preload: () => Promise<void> };

/**
 * Once loaded (by `preload` or by a first render) it renders at once, with no Suspense fallback in
 * between: main.tsx loads what the first screen shows before the first render, so nothing appears
 * a moment late and pushes the page about.
 */
export function preloadable(load: () => Promise<{ default: ComponentType }>): Preloadable {
  let loaded: ComponentType | undefined;
  const remember = async () => {
    const module = await load();
    loaded = module.default;
    return module;
  };
  const Lazy = lazy(remember);
  const Component = () => {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  };
  return Object.assign(Component, {
    preload: async () => {
      await remember();
    },
  });
}
