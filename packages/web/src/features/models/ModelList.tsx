import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Box, Stack } from '@mantine/core';
import { measureElement, useVirtualizer } from '@tanstack/react-virtual';
import type { Model } from '@adam/contracts';
import { VIRTUAL_LIST } from './constants';
import { shouldVirtualise } from './modelRules';

/** The window's inner height, following resizes. */
function useViewportHeight(): number {
  const [height, setHeight] = useState(() => window.innerHeight);
  useEffect(() => {
    const update = () => setHeight(window.innerHeight);
    window.addEventListener('resize', update);
    return () => window.removeEventListener('resize', update);
  }, []);
  return height;
}

function VirtualModelList({
  models,
  height,
  renderCard,
}: {
  models: readonly Model[];
  height: number;
  renderCard: (model: Model) => ReactNode;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: models.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => VIRTUAL_LIST.minItemHeight,
    gap: VIRTUAL_LIST.spacing,
    getItemKey: (index) => models[index]?.id ?? index,
    // Cards are measured as drawn, never counted below the spec's minimum.
    measureElement: (element, entry, instance) =>
      Math.max(VIRTUAL_LIST.minItemHeight, measureElement(element, entry, instance)),
    overscan: 3,
  });
  return (
    <Box
      ref={scrollRef}
      h={height}
      style={{ overflowY: 'auto' }}
      data-testid="model-list"
      data-virtualised="true"
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const model = models[item.index];
          if (!model) return null;
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              style={{
                position: 'absolute',
                top: 0,
                left: 0,
                width: '100%',
                minHeight: VIRTUAL_LIST.minItemHeight,
                transform: `translateY(${item.start}px)`,
              }}
            >
              {renderCard(model)}
            </div>
          );
        })}
      </div>
    </Box>
  );
}

/**
 * The model cards: a plain stack, or a virtualised one (spec 001 §2.2, §9) when they would not
 * fit in the viewport less 300 and no card is expanded.
 */
export function ModelList({
  models,
  anyExpanded,
  renderCard,
}: {
  models: readonly Model[];
  anyExpanded: boolean;
  renderCard: (model: Model) => ReactNode;
}) {
  const viewportHeight = useViewportHeight();
  if (shouldVirtualise(models.length, viewportHeight, anyExpanded)) {
    return (
      <VirtualModelList
        models={models}
        height={Math.max(VIRTUAL_LIST.minItemHeight, viewportHeight - VIRTUAL_LIST.viewportOffset)}
        renderCard={renderCard}
      />
    );
  }
  return (
    <Stack gap={VIRTUAL_LIST.spacing} data-testid="model-list" data-virtualised="false">
      {models.map((model) => (
        <div key={model.id}>{renderCard(model)}</div>
      ))}
    </Stack>
  );
}
