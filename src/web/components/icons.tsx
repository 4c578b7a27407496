/**
 * The few icons the shop uses, as inline SVG: no icon font to download on a phone.
 * Decorative by default (aria-hidden); give a `title` when the icon alone carries meaning.
 */
interface IconProps {
  size?: number;
  className?: string;
  title?: string;
}

function Svg({ size = 16, className, title, children }: IconProps & { children: React.ReactNode }) {
  return (
    // biome-ignore lint/a11y/noSvgWithoutTitle: decorative icons are aria-hidden; an icon given a title renders it below
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="currentColor"
      className={className}
      aria-hidden={title ? undefined : true}
      role={title ? 'img' : undefined}
      focusable="false"
    >
      {title && <title>{title}</title>}
      {children}
    </svg>
  );
}

const STAR = 'M8 .8l2.2 4.6 5 .7-3.6 3.5.9 5L8 12.2 3.5 14.6l.9-5L.8 6.1l5-.7z';

export const StarFull = (p: IconProps) => (
  <Svg {...p}>
    <path d={STAR} />
  </Svg>
);
export const StarEmpty = (p: IconProps) => (
  <Svg {...p}>
    <path d={STAR} fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
  </Svg>
);
export const StarHalf = (p: IconProps) => (
  <Svg {...p}>
    <defs>
      <clipPath id="star-half-clip">
        <rect x="0" y="0" width="8" height="16" />
      </clipPath>
    </defs>
    <path d={STAR} fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
    <path d={STAR} clipPath="url(#star-half-clip)" />
  </Svg>
);
export const CartIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M0 1.5h2.3l.6 2.5H15l-1.6 6.5H4.3L2.2 3 1.6 1.5zM5 12.5a1.5 1.5 0 110 3 1.5 1.5 0 010-3zm7 0a1.5 1.5 0 110 3 1.5 1.5 0 010-3z" />
  </Svg>
);
export const UserIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M8 8a3.5 3.5 0 100-7 3.5 3.5 0 000 7zm-6 7c0-3.3 2.7-5.5 6-5.5s6 2.2 6 5.5z" />
  </Svg>
);
export const CheckIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.2 11.6L2.4 7.8 1 9.2l5.2 5.2L15 5.6l-1.4-1.4z" />
  </Svg>
);
export const CrossIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M3.4 2L2 3.4 6.6 8 2 12.6 3.4 14 8 9.4l4.6 4.6 1.4-1.4L9.4 8 14 3.4 12.6 2 8 6.6z" />
  </Svg>
);
export const TrashIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M5.5 1h5l.5 1H14v1.5H2V2h3zM3 4.5h10l-.8 10.5H3.8zm3 2v6.5h1.2V6.5zm2.8 0v6.5H10V6.5z" />
  </Svg>
);
export const EditIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M11.5 1.3l3.2 3.2-9 9L2 14l.5-3.7zM1 15h14v1H1z" />
  </Svg>
);
export const SearchIcon = (p: IconProps) => (
  <Svg {...p}>
    <path d="M6.5 1a5.5 5.5 0 014.4 8.8l4 4-1.2 1.2-4-4A5.5 5.5 0 116.5 1zm0 1.6a3.9 3.9 0 100 7.8 3.9 3.9 0 000-7.8z" />
  </Svg>
);
